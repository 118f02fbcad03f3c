/**
 * The report's charts as Vega-Lite specifications (https://vega.github.io/vega-lite/): measured series as solid lines or
 * points, limits as black dashed step lines, each series with its own colour and dash or shape (./palette.ts). Times
 * are on a UTC axis.
 */
import { CAUSE_COLORS, FAILURE_COLORS, FAILURE_SHAPES, LIMIT, MEASURED, PERCENTILES, type SeriesStyle } from './palette.js';
import type { Point } from './chart-series.js';

/** A Vega-Lite specification (a JSON object). */
export type VegaLiteSpec = Record<string, unknown>;

const WIDTH = 640;
/** Causes drawn in a dark colour: their names are written in white. */
const DARK_CAUSES = new Set(['rpm', 'pause', 'input', 'park', 'rpd', 'backoff']);
const HEIGHT = 140;

const CONFIG = {
  font: 'Helvetica, Arial, sans-serif',
  background: 'white',
  axis: { labelFontSize: 10, titleFontSize: 11, gridColor: '#e4e4e4' },
  legend: { labelFontSize: 10, titleFontSize: 10, orient: 'bottom', direction: 'horizontal', columns: 3, symbolStrokeWidth: 2, labelLimit: 0 },
  line: { strokeWidth: 1.6 },
  view: { stroke: '#cccccc' },
};

const TIME_X = { field: 't', type: 'temporal', title: 'time (UTC)', scale: { type: 'utc' }, axis: { format: '%H:%M:%S', labelOverlap: true } };

/** One series of a line chart: its points, how it is drawn, and whether it is a limit (step line). */
export interface LineSeries {
  name: string;
  points: Point[];
  style: SeriesStyle;
  step?: boolean;
}

/**
 * A line chart over time: measured series and limits, one legend naming each (colour and dash).
 * @param yTitle the y axis's title, with its unit.
 */
export function lineChart(yTitle: string, series: readonly LineSeries[], options: { yScale?: 'linear' | 'log' } = {}): VegaLiteSpec {
  const present = series.filter((s) => s.points.length > 0);
  const domain = present.map((s) => s.name);
  const color = { field: 's', type: 'nominal', title: null, scale: { domain, range: present.map((s) => s.style.color) }, legend: { symbolType: 'stroke' } };
  const strokeDash = { field: 's', type: 'nominal', title: null, scale: { domain, range: present.map((s) => s.style.dash) }, legend: { symbolType: 'stroke' } };
  const y = { field: 'v', type: 'quantitative', title: yTitle, ...(options.yScale === 'log' ? { scale: { type: 'log' } } : {}) };
  const layers = present.map((s) => ({
    data: { values: s.points },
    mark: { type: 'line', interpolate: s.step ? 'step-after' : 'linear', ...(s.points.length === 1 ? { point: true } : {}) },
    encoding: { x: TIME_X, y, color, strokeDash },
  }));
  return base(layers.length > 0 ? { layer: layers } : emptyLayer());
}

/** Failures over time: a point per kind and time slot, its size the count; a colour and shape per kind. */
export function failureChart(points: readonly Point[]): VegaLiteSpec {
  const kinds = [...new Set(points.map((p) => p.s))];
  return base({
    data: { values: points },
    mark: { type: 'point', filled: true, opacity: 0.85 },
    encoding: {
      x: TIME_X,
      y: { field: 'v', type: 'quantitative', title: 'failed requests' },
      color: { field: 's', type: 'nominal', title: null, scale: { domain: kinds, range: kinds.map((_, i) => FAILURE_COLORS[i % FAILURE_COLORS.length]) } },
      shape: { field: 's', type: 'nominal', title: null, scale: { domain: kinds, range: kinds.map((_, i) => FAILURE_SHAPES[i % FAILURE_SHAPES.length]) } },
    },
  });
}

/** Requests per quota day as bars, the RPD limit of each day as a black dashed tick. */
export function perDayChart(days: ReadonlyArray<{ day: string; requests: number; rpd: number | undefined }>, zone: string, names: { requests: string; rpd: string }): VegaLiteSpec {
  const bars = days.map((d) => ({ day: d.day, v: d.requests, s: names.requests }));
  const limits = days.filter((d) => d.rpd !== undefined).map((d) => ({ day: d.day, v: d.rpd as number, s: names.rpd }));
  const domain = limits.length > 0 ? [names.requests, names.rpd] : [names.requests];
  const color = { field: 's', type: 'nominal', title: null, scale: { domain, range: [MEASURED.color, LIMIT.color] } };
  const x = { field: 'day', type: 'ordinal', title: `quota day (${zone})`, sort: null, axis: { labelAngle: 0 } };
  const layers: unknown[] = [{ data: { values: bars }, mark: { type: 'bar', width: { band: 0.6 } }, encoding: { x, y: { field: 'v', type: 'quantitative', title: 'requests' }, color } }];
  if (limits.length > 0) {
    layers.push({ data: { values: limits }, mark: { type: 'tick', thickness: 2, strokeDash: LIMIT.dash, size: 40 }, encoding: { x, y: { field: 'v', type: 'quantitative' }, color } });
  }
  return { ...base({ layer: layers }), width: Math.min(WIDTH, 80 + 60 * days.length) };
}

/** The run as a band of stretches coloured by what bound it, each named in its band where it fits. */
export function stretchChart(stretches: ReadonlyArray<{ from: number; to: number; cause: string; name: string }>): VegaLiteSpec {
  const values = stretches.map((s) => ({ from: s.from, to: Math.max(s.to, s.from + 1), cause: s.cause, name: s.name, ink: DARK_CAUSES.has(s.cause) ? 'white' : 'black' }));
  const causes = [...new Set(values.map((v) => v.cause))];
  const names = causes.map((c) => values.find((v) => v.cause === c)!.name);
  const span = Math.max(1, (values.at(-1)?.to ?? 1) - (values[0]?.from ?? 0));
  return {
    ...base({
      data: { values },
      layer: [
        {
          mark: { type: 'bar', stroke: 'white', strokeWidth: 1 },
          encoding: {
            x: { ...TIME_X, field: 'from' },
            x2: { field: 'to' },
            color: { field: 'name', type: 'nominal', title: null, scale: { domain: names, range: causes.map((c) => CAUSE_COLORS[c] ?? '#777777') } },
          },
        },
        {
          transform: [{ filter: `datum.to - datum.from > ${span / 9}` }, { calculate: '(datum.from + datum.to) / 2', as: 'mid' }],
          mark: { type: 'text', fontWeight: 'bold', fontSize: 10 },
          encoding: {
            x: { field: 'mid', type: 'temporal', scale: { type: 'utc' } },
            text: { field: 'name' },
            color: { field: 'ink', type: 'nominal', scale: null, legend: null },
          },
        },
      ],
    }),
    height: 28,
  };
}

function base(body: Record<string, unknown>): VegaLiteSpec {
  return { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', width: WIDTH, height: HEIGHT, config: CONFIG, ...body };
}

function emptyLayer(): Record<string, unknown> {
  return { data: { values: [] }, mark: 'point' };
}

/** The style of the n-th latency percentile (p50, p90, p99). */
export function percentileStyle(n: number): SeriesStyle {
  return PERCENTILES[n] ?? MEASURED;
}
