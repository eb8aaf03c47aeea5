import type { RunFigures, RunMeta } from './model.ts';

/** `45s`, `12m05s`, `3h52m`. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** A report's figures (earlier reports lack planned and answered). */
export function figuresOf(meta: Pick<RunMeta, 'requests' | 'retries' | 'waitedMs' | 'answered' | 'planned'>): Partial<RunFigures> & Pick<RunFigures, 'sent' | 'retried' | 'waitedMs'> {
  return { sent: meta.requests, retried: meta.retries, waitedMs: meta.waitedMs, ...(meta.answered !== undefined ? { answered: meta.answered } : {}), ...(meta.planned !== undefined ? { planned: meta.planned } : {}) };
}

/**
 * The figures in words, the same in the console's summary, the HTML and the certificate:
 * `planned 60 · sent 60 (12 resends) · answered 59 · 1m12s waited on throttling`.
 */
export function figuresText(f: Partial<RunFigures> & Pick<RunFigures, 'sent' | 'retried' | 'waitedMs'>): string {
  return [
    ...(f.planned !== undefined ? [`planned ${f.planned}`] : []),
    `sent ${f.sent} (${f.retried} resend${f.retried === 1 ? '' : 's'})`,
    ...(f.answered !== undefined ? [`answered ${f.answered}`] : []),
    `${clock(f.waitedMs)} waited on throttling or maintenance`,
  ].join(' · ');
}
