/**
 * The formats a read-only result streams in, as the engine writes them: mintpipe passes the
 * engine's bytes on and never builds the result in memory for the machine formats.
 */

/** `rows`: for the table printer and callers that want values; `json-lines` and `csv`: for programs. */
export type ResultFormat = 'rows' | 'json-lines' | 'csv';

export const RESULT_FORMATS: readonly ResultFormat[] = ['rows', 'json-lines', 'csv'];

/** The engine's output format of each (JSON rows escape line breaks; CSV quotes every string). */
export const ENGINE_FORMATS: Readonly<Record<ResultFormat, string>> = {
  rows: 'JSONCompactEachRowWithNamesAndTypes',
  'json-lines': 'JSONEachRow',
  csv: 'CSVWithNames',
};

/** Lines before the first row: names and types, the CSV header. */
export const HEADER_LINES: Readonly<Record<ResultFormat, number>> = { rows: 2, 'json-lines': 0, csv: 1 };

export const CONTENT_TYPES: Readonly<Record<ResultFormat, string>> = {
  rows: 'application/x-ndjson; charset=utf-8',
  'json-lines': 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
};

/**
 * Output settings of every read-only session: 64-bit integers as JSON numbers on both engines (a
 * server quotes them by default), and NULL as an empty CSV field.
 */
export const OUTPUT_SETTINGS: Readonly<Record<string, string | number>> = {
  output_format_json_quote_64bit_integers: 0,
  format_csv_null_representation: '',
};
