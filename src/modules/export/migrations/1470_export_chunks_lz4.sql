-- Chunk text compressed with LZ4 instead of PostgreSQL's default pglz (decision 0257): a job's
-- parts are tens of kilobytes of JSON each, compressed as they are stored; LZ4 compresses them
-- several times faster at a slightly larger size. A server built without LZ4 (the embedded store)
-- keeps its default.
do $$ begin
  alter table export_chunks alter column body set compression lz4;
exception when feature_not_supported or invalid_parameter_value then null;
end $$;
