import { createPlatform, ApiError } from '@energy-platform/sdk';

const platform = createPlatform({ baseUrl: 'https://api.example.com', credentials: { apiKey: process.env.PLATFORM_API_KEY! } });
try {
  for await (const alert of platform.partner.alerts({ limit: 100 })) console.log(alert.raised_at, alert.severity, alert.title);
  const admin = createPlatform({ baseUrl: 'https://api.example.com', credentials: { email: 'me@example.com', password: process.env.PLATFORM_PASSWORD! } });
  const report = await admin.telemetry.ingest([{ asset_id: 'bat-01', ts: new Date().toISOString(), soc_pct: 64.5 }], { batchSize: 500 });
  console.log(report.stored, report.rejectionsByReason);
} catch (e) {
  if (e instanceof ApiError) console.error(e.status, e.detail, e.requestId);
}
