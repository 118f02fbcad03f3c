import { parse } from 'csv-parse/sync';

/** The delimiters gemini-batch detects, in order of preference when the evidence ties. */
export const SNIFFED_DELIMITERS = [',', ';', '\t', '|'] as const;

/** How many records (after the header) are examined. */
const SAMPLE_RECORDS = 50;

/** A number written with a decimal comma (`1,5`, `-21.419,06`, `2 750,25`). */
const DECIMAL_COMMA = /^[-+]?(?:\d{1,3}(?:[.\u00a0\u202f ]\d{3})+|\d+),\d+$/;

/** What sniffing found for one candidate. */
interface CandidateScore {
  delimiter: string;
  /** Fields in the first record (the header). */
  headerFields: number;
  /** Share (0–1) of the sampled records whose field count fits the header (extra fields allowed only if empty). */
  consistency: number;
  /** Some cells read with this delimiter are numbers with a decimal comma. */
  decimalCommas: boolean;
}

/**
 * Guesses the field delimiter among `,` `;` TAB `|` from the start of a file, by the consistency of field counts
 * over the first 50 records, quotes respected (a delimiter inside a quoted cell does not count).
 * Rules, in order:
 * 1. a candidate must split the header into at least 2 fields;
 * 2. the highest share of records whose field count fits the header wins;
 * 3. on a tie, `,` loses to a candidate whose cells hold decimal-comma numbers (`1,5;2,75` is `;` delimited);
 * 4. then more header fields win; then TAB for a `.tsv` file; then the order `,` `;` TAB `|`.
 * A text where no candidate splits the header (a one-column file) gives TAB for `.tsv`, else `,`.
 * @param text decoded text starting at the header line.
 * @param quote the quote character.
 * @param complete true when `text` is the whole file (otherwise its last record may be cut and is ignored).
 * @param preferTab true for a `.tsv` file.
 */
export function sniffDelimiter(text: string, quote: string, complete: boolean, preferTab = false): string {
  const scores = SNIFFED_DELIMITERS.map((delimiter) => scoreCandidate(text, delimiter, quote, complete)).filter(
    (score) => score.headerFields >= 2,
  );
  if (scores.length === 0) return preferTab ? '\t' : ',';
  const decimalCommaElsewhere = (score: CandidateScore): boolean =>
    score.delimiter === ',' && scores.some((other) => other !== score && other.decimalCommas && other.consistency >= score.consistency);
  const rank = (score: CandidateScore): number[] => [
    score.consistency,
    decimalCommaElsewhere(score) ? 0 : 1,
    score.headerFields,
    preferTab && score.delimiter === '\t' ? 1 : 0,
    -SNIFFED_DELIMITERS.indexOf(score.delimiter as (typeof SNIFFED_DELIMITERS)[number]),
  ];
  scores.sort((a, b) => compareRanks(rank(b), rank(a)));
  return scores[0]?.delimiter ?? ',';
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i += 1) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

function scoreCandidate(text: string, delimiter: string, quote: string, complete: boolean): CandidateScore {
  const records: string[][] = [];
  try {
    parse(text, {
      delimiter,
      quote,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      to: SAMPLE_RECORDS + 2,
      on_record: (record: string[]) => {
        records.push(record);
        return null;
      },
    });
  } catch {
    // A cut or malformed record: score the records read before it.
  }
  if (!complete && records.length > 1) records.pop();
  const header = records[0] ?? [];
  const body = records.slice(1, SAMPLE_RECORDS + 1);
  const fits = body.filter((record) => fitsHeader(record, header.length)).length;
  return {
    delimiter,
    headerFields: header.length,
    consistency: body.length === 0 ? 1 : fits / body.length,
    decimalCommas: body.some((record) => record.some((cell) => DECIMAL_COMMA.test(cell.trim()))),
  };
}

/** The record has the header's field count, or more where every extra field is empty. */
function fitsHeader(record: readonly string[], headerFields: number): boolean {
  if (record.length < headerFields) return false;
  for (let i = headerFields; i < record.length; i += 1) if (record[i] !== '') return false;
  return true;
}
