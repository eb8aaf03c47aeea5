/**
 * The curve of faults caught against requests, as a self-contained SVG (no script, no font or file
 * outside it): one panel per mode, a line per series, the axes labelled, the points marked with their
 * value, and a legend. What `npm run plan:heldout -- --out DIR` and `npm run bench` write.
 */

export interface Series {
  label: string;
  /** [requests, percent caught] in order of requests. */
  points: ReadonlyArray<readonly [number, number]>;
  color: string;
  dashed?: boolean;
}

export interface Panel {
  title: string;
  series: readonly Series[];
}

const W = 520;
const H = 330;
const M = { left: 52, right: 16, top: 34, bottom: 46 };

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function panelSvg(panel: Panel, x0: number, maxX: number, target?: number): string {
  const iw = W - M.left - M.right;
  const ih = H - M.top - M.bottom;
  const sx = (x: number) => x0 + M.left + (x / maxX) * iw;
  const sy = (y: number) => M.top + ih - (y / 100) * ih;
  const out: string[] = [];
  out.push(`<text x="${x0 + M.left}" y="20" class="title">${esc(panel.title)}</text>`);
  for (let y = 0; y <= 100; y += 20) {
    out.push(`<line x1="${sx(0)}" y1="${sy(y)}" x2="${sx(maxX)}" y2="${sy(y)}" class="grid"/>`);
    out.push(`<text x="${sx(0) - 6}" y="${sy(y) + 4}" class="tick" text-anchor="end">${y}%</text>`);
  }
  const step = maxX <= 100 ? 20 : maxX <= 300 ? 50 : 100;
  for (let x = 0; x <= maxX; x += step) {
    out.push(`<line x1="${sx(x)}" y1="${sy(0)}" x2="${sx(x)}" y2="${sy(0) + 4}" class="axis"/>`);
    out.push(`<text x="${sx(x)}" y="${sy(0) + 17}" class="tick" text-anchor="middle">${x}</text>`);
  }
  out.push(`<line x1="${sx(0)}" y1="${sy(0)}" x2="${sx(maxX)}" y2="${sy(0)}" class="axis"/><line x1="${sx(0)}" y1="${sy(0)}" x2="${sx(0)}" y2="${sy(100)}" class="axis"/>`);
  out.push(`<text x="${sx(maxX / 2)}" y="${H - 8}" class="label" text-anchor="middle">requests (the budget)</text>`);
  if (target !== undefined) {
    out.push(`<line x1="${sx(0)}" y1="${sy(target)}" x2="${sx(maxX)}" y2="${sy(target)}" class="target"/>`);
    out.push(`<text x="${sx(maxX) - 2}" y="${sy(target) - 4}" class="tick" text-anchor="end">${target}%</text>`);
  }
  panel.series.forEach((s, i) => {
    const path = s.points.map(([x, y], k) => `${k === 0 ? 'M' : 'L'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
    out.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}><title>${esc(s.label)}</title></path>`);
    for (const [x, y] of s.points) out.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="3" fill="${s.color}"><title>${esc(`${s.label}: ${y.toFixed(1)}% at ${x} requests`)}</title></circle>`);
    // The legend sits low on the right, where the curves have risen.
    const ly = M.top + ih - 12 - (panel.series.length - 1 - i) * 16;
    const lx = sx(maxX) - 170;
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 22}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/><text x="${lx + 28}" y="${ly + 4}" class="legend">${esc(s.label)}</text>`);
  });
  return out.join('\n');
}

/** Panels side by side in one SVG, sharing the x scale; `target` draws a horizontal line (a goal, in percent). */
export function curvesSvg(title: string, panels: readonly Panel[], options: { target?: number; note?: string } = {}): string {
  const maxX = Math.max(10, ...panels.flatMap((p) => p.series.flatMap((s) => s.points.map(([x]) => x))));
  const width = W * panels.length;
  const height = H + (options.note ? 22 : 0) + 24;
  const body = panels.map((p, i) => `<g transform="translate(0,24)">${panelSvg(p, i * W, maxX, options.target)}</g>`).join('\n');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(title)}">`,
    '<style>text{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;fill:#222}.title{font-size:14px;font-weight:600}.tick{font-size:11px;fill:#555}.label{font-size:12px}.legend{font-size:11px}.grid{stroke:#e5e5e5}.axis{stroke:#888}.target{stroke:#c00;stroke-dasharray:2 3}</style>',
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="12" y="18" class="title">${esc(title)}</text>`,
    body,
    options.note ? `<text x="12" y="${height - 8}" class="tick">${esc(options.note)}</text>` : '',
    '</svg>',
  ].join('\n');
}
