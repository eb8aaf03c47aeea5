import type { RunConfig } from '../../config/config.ts';
import { KEY_REFUSED_AFTER, keyRefusedReason, showsKeyAcceptance } from '../../contract/agency.ts';
import type { HttpClientOptions } from '../../contract/exchange.ts';
import { routeEvidence, WRONG_BASE_AFTER, wrongBasePathReason } from '../../contract/routes.ts';
import { HARNESS_TAG } from '../../generate/templates.ts';
import { firstBackoffFor } from './availability.ts';

/** What of the run's configuration decides how requests reach the target. */
export type TargetSettings = Pick<RunConfig, 'key' | 'timeoutMs' | 'maxBodyBytes' | 'headers' | 'network'> & Partial<Pick<RunConfig, 'caFile' | 'maintenanceWaitMs'>>;

/**
 * The options of the client that talks to the target, as a run sets them: its key, timeout and body cap,
 * the extra headers (values never recorded), the proxy route, the harness's User-Agent, throttling waited
 * out (a gateway may throttle on any target: section 8, rate limits not shown), and the key and route watches (the run
 * stops once the target refuses the key, or answers 404 at every documented path). The run's engine and `replay` both build their client from it.
 */
export function targetClientOptions(
  baseUrl: string,
  settings: TargetSettings,
  agency: string,
  extra: Pick<HttpClientOptions, 'unresponsiveFile' | 'beforeSend'> = {},
): HttpClientOptions {
  return {
    baseUrl,
    key: settings.key,
    timeoutMs: settings.timeoutMs,
    maxBodyBytes: settings.maxBodyBytes,
    userAgent: HARNESS_TAG,
    headers: settings.headers,
    proxy: settings.network.proxy,
    ...(settings.caFile !== undefined ? { caFile: settings.caFile } : {}),
    throttling: true,
    ...(settings.maintenanceWaitMs !== undefined ? { unavailableBackoffMs: firstBackoffFor(settings.maintenanceWaitMs) } : {}),
    keyRefusal: { after: KEY_REFUSED_AFTER, shows: (spec) => showsKeyAcceptance(spec, agency), message: keyRefusedReason(agency) },
    routeWatch: { after: WRONG_BASE_AFTER, evidence: routeEvidence, reason: (seen) => wrongBasePathReason(baseUrl, seen) },
    ...extra,
  };
}
