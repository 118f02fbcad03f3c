/**
 * Renders a Vega-Lite specification to SVG text in Node, without a browser or a canvas: `vega-lite` compiles it to a
 * Vega specification and `vega`'s headless View renders it (`View.toSVG()`; text widths are estimated, as Vega does
 * without node-canvas). Loaded on demand, so that classify runs without a report never load them.
 */
import type { VegaLiteSpec } from './chart-specs.js';

/**
 * @returns the chart as a standalone `<svg>` element.
 * @throws Error when the specification is invalid (a bug in ./chart-specs.ts).
 */
export async function renderSvg(spec: VegaLiteSpec): Promise<string> {
  const [vega, vl] = await Promise.all([import('vega'), import('vega-lite')]);
  // Warnings (an empty extent…) are not the user's business: only errors are logged.
  const logger = vega.logger(vega.Error);
  const compiled = vl.compile(spec as unknown as Parameters<typeof vl.compile>[0], { logger }).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logLevel: vega.Error });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
