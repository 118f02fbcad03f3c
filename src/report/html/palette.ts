/**
 * Colours, dashes and shapes of the report's charts: the Okabe–Ito palette (Okabe & Ito, "Color Universal Design",
 * 2008; https://jfly.uni-koeln.de/color/), safe for the common colour-vision deficiencies, and each series also drawn
 * with its own dash pattern or point shape, so that it stays readable printed in grey. Limits are always black, dashed.
 */

/** The eight Okabe–Ito colours. */
export const OKABE_ITO = {
  black: '#000000',
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
} as const;

/** How a series is drawn: colour and dash pattern (SVG stroke-dasharray; [1, 0] is solid). */
export interface SeriesStyle {
  color: string;
  dash: number[];
}

/** What was measured: solid blue. */
export const MEASURED: SeriesStyle = { color: OKABE_ITO.blue, dash: [1, 0] };
/** A limit (RPM, TPM, RPD, the concurrency bound): black, long dashes. */
export const LIMIT: SeriesStyle = { color: OKABE_ITO.black, dash: [6, 4] };
/** Latency percentiles: p50 solid blue, p90 orange long dashes, p99 vermillion dots. */
export const PERCENTILES: readonly SeriesStyle[] = [
  { color: OKABE_ITO.blue, dash: [1, 0] },
  { color: OKABE_ITO.orange, dash: [8, 3] },
  { color: OKABE_ITO.vermillion, dash: [2, 2] },
];

/** Failure kinds in the error chart: a colour and a point shape each (shapes repeat after six, colours after six). */
export const FAILURE_COLORS: readonly string[] = [OKABE_ITO.vermillion, OKABE_ITO.blue, OKABE_ITO.bluishGreen, OKABE_ITO.reddishPurple, OKABE_ITO.orange, OKABE_ITO.skyBlue];
export const FAILURE_SHAPES: readonly string[] = ['circle', 'square', 'triangle-up', 'diamond', 'cross', 'triangle-down'];

/** The colour of each cause in the "what bound the rate" timeline; light and dark alternate for grey print. */
export const CAUSE_COLORS: Readonly<Record<string, string>> = {
  rpm: OKABE_ITO.blue,
  tpm: OKABE_ITO.skyBlue,
  rpd: OKABE_ITO.reddishPurple,
  concurrency: OKABE_ITO.orange,
  cpu: OKABE_ITO.yellow,
  pause: OKABE_ITO.vermillion,
  backoff: OKABE_ITO.reddishPurple,
  input: OKABE_ITO.bluishGreen,
  finishing: '#BBBBBB',
  park: OKABE_ITO.black,
};
