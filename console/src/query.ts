// Data loading: TanStack Query's core (@tanstack/query-core) bound to Preact hooks. Its Preact
// package needs Preact 10, so this is the thin binding it would be: one QueryObserver (or
// MutationObserver) per component, subscribed while mounted. Every read goes through it, so equal
// reads are de-duplicated, answers are cached by key, and a cached answer is shown at once while
// a stale one is fetched again (stale-while-revalidate). Live events change cached answers with
// `queryClient.setQueryData` and ask for a fresh copy with `refetchSoon`, which fetches a key at
// most once per interval however many events arrive.
import {
  type DefaultError,
  hashKey,
  MutationObserver,
  type MutationObserverOptions,
  notifyManager,
  QueryClient,
  type QueryKey,
  QueryObserver,
  type QueryObserverOptions,
} from '@tanstack/query-core';
import { useEffect, useReducer, useState } from 'preact/hooks';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // An answer is fresh for 10 s: screens opened again within that show it without a request.
      staleTime: 10_000,
      // The SDK's transport already retries 429 and 503 (honouring Retry-After); a refusal is shown.
      retry: false,
    },
    mutations: { retry: false },
  },
});

// Preact renders synchronously on state change; batch the observers' notifications per tick.
notifyManager.setScheduler((cb) => queueMicrotask(cb));

export function useQuery<T, K extends QueryKey = QueryKey>(options: QueryObserverOptions<T, DefaultError, T, T, K>) {
  const defaulted = queryClient.defaultQueryOptions(options);
  const [observer] = useState(() => new QueryObserver<T, DefaultError, T, T, K>(queryClient, defaulted));
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    const off = observer.subscribe(notifyManager.batchCalls(() => rerender(0)));
    // A change between this render and the subscription is not missed.
    observer.updateResult();
    return off;
  }, [observer]);
  useEffect(() => observer.setOptions(defaulted));
  return observer.getOptimisticResult(defaulted);
}

export function useMutation<T, V = void>(options: MutationObserverOptions<T, DefaultError, V>) {
  const [observer] = useState(() => new MutationObserver<T, DefaultError, V>(queryClient, options));
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  useEffect(() => observer.subscribe(notifyManager.batchCalls(() => rerender(0))), [observer]);
  useEffect(() => observer.setOptions(options));
  const result = observer.getCurrentResult();
  return {
    ...result,
    /** Runs it; the outcome is in `error`/`data` (and the options' onSuccess/onError). */
    mutate: (v: V) => void observer.mutate(v).catch(() => undefined),
    mutateAsync: (v: V) => observer.mutate(v),
    reset: () => observer.reset(),
  };
}

const soon = new Map<string, ReturnType<typeof setTimeout>>();
/**
 * Fetches `queryKey` again within `everyMs` (once, whatever number of calls meanwhile): live events
 * ask for a fresh answer with it, so a busy stream never becomes a request per event.
 */
export function refetchSoon(queryKey: QueryKey, everyMs = REFETCH_EVERY_MS): void {
  const key = hashKey(queryKey);
  if (soon.has(key)) return;
  soon.set(
    key,
    setTimeout(() => {
      soon.delete(key);
      void queryClient.invalidateQueries({ queryKey, exact: true });
    }, everyMs),
  );
}
/** At most one refetch per key in this long, however busy the live stream (issue 41, item 1). */
export const REFETCH_EVERY_MS = 5_000;

/** Forgets every cached answer (sign-out: the next account must not see the last one's data). */
export function forgetAll(): void {
  for (const t of soon.values()) clearTimeout(t);
  soon.clear();
  queryClient.clear();
}

/**
 * A read for a screen: `useRead(key, load)` with the screen's words for its state. `loading` is
 * true while there is neither an answer nor a refusal (a refetch keeps showing the cached answer); `reload` fetches
 * again now (the "Try again" buttons).
 */
export function useRead<T>(
  queryKey: QueryKey,
  load: () => Promise<T>,
  /** `refetchInterval`: for state the live stream does not carry (a charger's connector status, a job's progress). */
  opts: { enabled?: boolean; staleTime?: number; refetchInterval?: number | false } = {},
) {
  const q = useQuery<T>({ queryKey, queryFn: load, ...opts });
  return { data: q.data, error: q.error, loading: q.status === 'pending', fetching: q.isFetching, reload: () => void q.refetch() };
}
