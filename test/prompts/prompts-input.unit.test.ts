import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { batchIdFor, promptIdFor } from '../../src/prompts/prompt-ids.js';
import { detectFormat, parsePromptText, readPromptFile } from '../../src/prompts/read-prompt-file.js';
import { fileTempDir } from '../support/test-env.js';

const limits = { maxPromptBytes: 64 };

describe('prompt files', () => {
  it('reads JSONL, skipping blank lines and reporting each bad line with its number and reason', async () => {
    const text = [
      '{"projectId":"p","jobId":"j1","prompt":"hello"}',
      '',
      '{"projectId":" p ","jobId":"j2","prompt":"  keep my spaces "}',
      '{"projectId":"p","jobId":"","prompt":"x"}',
      '{"projectId":"p","jobId":7,"prompt":"x"}',
      '{"projectId":"p","jobId":"j3","prompt":"   "}',
      `{"projectId":"p","jobId":"j4","prompt":"${'é'.repeat(33)}"}`,
      '[1,2]',
      '{"projectId":"p","jobId":"j5"',
      '{"jobId":"j6","prompt":"x"}',
    ].join('\n');
    const file = await parsePromptText('in.jsonl', text, limits);
    expect(file.format).toBe('jsonl');
    expect(file.prompts).toEqual([
      { projectId: 'p', jobId: 'j1', prompt: 'hello', line: 1, kind: 'message', head: 0 },
      { projectId: 'p', jobId: 'j2', prompt: '  keep my spaces ', line: 3, kind: 'message', head: 1 },
    ]);
    expect(file.problems.map((p) => [p.line, p.reason.replace(/ \(.*\)$/, '')])).toEqual([
      [4, 'jobId: empty'],
      [5, 'jobId: expected a string, got number'],
      [6, 'prompt: empty'],
      [7, 'prompt: 66 bytes, more than the limit of 64'],
      [8, 'expected an object with projectId, prompt (and jobId, chain), got an array'],
      [9, 'not JSON'],
      [10, 'projectId: missing'],
    ]);
  });

  it('accepts a prompt of exactly the byte limit and refuses one byte more, counting UTF-8 bytes', async () => {
    const text = [
      `{"projectId":"p","jobId":"j1","prompt":"${'é'.repeat(32)}"}`,
      `{"projectId":"p","jobId":"j2","prompt":"${'é'.repeat(32)}x"}`,
    ].join('\n');
    const file = await parsePromptText('limit.jsonl', text, limits);
    expect(file.prompts.map((p) => p.line)).toEqual([1]);
    expect(file.problems).toEqual([{ line: 2, reason: 'prompt: 65 bytes, more than the limit of 64' }]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR, as old spreadsheets save it', '\r'],
  ])('reads CSV (%s) with quoted commas, doubled quotes and newlines, numbering each record by the line it starts on', async (_name, eol) => {
    const text = [
      'jobId,projectId,prompt,note', // any column order; extra columns are ignored
      'j1,p,"ünë, two",x',
      '',
      'j2,p,"first line',
      'second ""quoted"" line",',
      'j3,p',
      'j4,p,"a""b",',
      ',p,no job,',
      'j5,p,"never closed',
      'more',
    ].join(eol);
    const file = await parsePromptText('in.csv', text, limits);
    expect(file.prompts.map(({ projectId, jobId, prompt, line }) => ({ projectId, jobId, prompt, line }))).toEqual([
      { projectId: 'p', jobId: 'j1', prompt: 'ünë, two', line: 2 },
      { projectId: 'p', jobId: 'j2', prompt: `first line${eol}second "quoted" line`, line: 4 },
      { projectId: 'p', jobId: 'j4', prompt: 'a"b', line: 7 },
    ]);
    expect(file.problems.map((p) => p.line)).toEqual([6, 8, 9]);
    expect(file.problems[0]!.reason).toBe('expected 3 fields, got 2');
    expect(file.problems[1]!.reason).toMatch(/^jobId: missing \(a row without a jobId starts a new agent job.*--allow-create\)$/);
    expect(file.problems[2]!.reason).toMatch(/^CSV: a quote opened on this line is never closed/);
  });

  it('refuses a field that reads like a known one but is not it, rather than drop it (a dropped jobId would start a new agent job)', async () => {
    const rows = [
      '{"projectId":"p","jobid":"j1","prompt":"x"}',
      '{"projectId":"p","job_id":"j1","prompt":"x"}',
      '{"ProjectId":"p","jobId":"j1","prompt":"x"}',
      '{"projectId":"p","jobId":"j1","prompt":"x","note":"kept aside"}',
    ];
    const file = await parsePromptText('in.jsonl', rows.join('\n'), limits, { allowCreate: true });
    expect(file.prompts.map((p) => [p.line, p.kind, p.jobId])).toEqual([[4, 'message', 'j1']]);
    expect(file.problems.map((p) => [p.line, p.reason])).toEqual([
      [1, 'unknown field "jobid" (did you mean "jobId"? fields are case-sensitive)'],
      [2, 'unknown field "job_id" (did you mean "jobId"? fields are case-sensitive)'],
      [3, 'unknown field "ProjectId" (did you mean "projectId"? fields are case-sensitive)'],
    ]);
    await expect(parsePromptText('in.csv', 'projectId,job_id,prompt\np,j1,x\n', limits, { allowCreate: true })).rejects.toThrow(
      new UsageError('in.csv: CSV header: unknown column "job_id" (did you mean "jobId"? fields are case-sensitive)'),
    );
  });

  it('refuses a projectId or jobId that cannot stay one segment of the API\'s URL path, by the rule every project id follows', async () => {
    const lines = ['{"projectId":"a/b","jobId":"j","prompt":"x"}', '{"projectId":"..","jobId":"j","prompt":"x"}', '{"projectId":"p","jobId":"j/../k","prompt":"x"}', '{"projectId":"p","jobId":"j","prompt":"ok"}'];
    const parsed = await parsePromptText('in.jsonl', lines.join('\n'), limits, {});
    expect(parsed.prompts.map((p) => p.prompt)).toEqual(['ok']);
    expect(parsed.problems.map((p) => [p.line, p.reason])).toEqual([
      [1, 'projectId: project id "a/b" contains a slash (it is one segment of the API\'s URL path)'],
      [2, 'projectId: ".." cannot be an id'],
      [3, 'jobId: "j/../k" contains a slash (it is one segment of the API\'s URL path)'],
    ]);
  });

  it('refuses a blank or explicitly empty jobId instead of reading it as none (which would start a new agent job)', async () => {
    const jsonl = await parsePromptText('in.jsonl', ['{"projectId":"p","jobId":"  ","prompt":"x"}', '{"projectId":"p","jobId":"","prompt":"x"}', '{"projectId":"p","chain":"","prompt":"x"}'].join('\n'), limits, {
      allowCreate: true,
    });
    expect(jsonl.prompts).toEqual([]);
    expect(jsonl.problems.map((p) => [p.line, p.reason])).toEqual([
      [1, 'jobId: blank (leave it out for none)'],
      [2, 'jobId: empty (leave the field out for none)'],
      [3, 'chain: empty (leave the field out for none)'],
    ]);
    // In CSV an empty cell is how a row says "no jobId" (a create); a cell of spaces is a mistake.
    const csv = await parsePromptText('in.csv', 'projectId,jobId,prompt\np,  ,blank\np,,empty\n', limits, { allowCreate: true });
    expect(csv.prompts.map((p) => [p.line, p.kind])).toEqual([[3, 'create']]);
    expect(csv.problems.map((p) => [p.line, p.reason])).toEqual([[2, 'jobId: blank (leave it out for none)']]);
  });

  it('refuses a CSV record with a value where the header names no column (an unquoted comma would cut the prompt short); empty trailing cells are fine', async () => {
    const text = ['projectId,jobId,prompt,', 'p,j1,Fix the intro, then the outro', 'p,j2,"Fix the intro, then the outro"', 'p,j3,spreadsheet row,,', 'p,j4,short row'].join('\n');
    const file = await parsePromptText('in.csv', text, limits);
    expect(file.prompts.map((p) => [p.line, p.prompt])).toEqual([
      [3, 'Fix the intro, then the outro'],
      [4, 'spreadsheet row'],
      [5, 'short row'],
    ]);
    expect(file.problems.map((p) => [p.line, p.reason])).toEqual([[2, 'field 4 has a value but the header names no column there (quote a prompt that holds commas: "…, …")']]);
  });

  it('refuses a CSV header that names a column twice (one of the two values would be dropped)', async () => {
    await expect(parsePromptText('in.csv', 'projectId,jobId,prompt,jobId\np,,hello,J1\n', limits, { allowCreate: true })).rejects.toThrow(
      new UsageError('in.csv: CSV header names the column jobId twice'),
    );
  });

  it("refuses a chain's later rows after a row refused for its fields, so none of them becomes the chain's create", async () => {
    const rows = [
      '{"projectId":"p","job_id":"J","prompt":"a","chain":"c"}',
      '{"projectId":"p","prompt":"b","chain":"c"}',
      '{"projectId":"p","jobId":"","prompt":"a","Chain":"d"}',
      '{"projectId":"p","prompt":"b","chain":"d"}',
      '{"projectId":"p","jobId":null,"prompt":"a"}',
    ];
    const file = await parsePromptText('in.jsonl', rows.join('\n'), limits, { allowCreate: true });
    expect(file.prompts).toEqual([]);
    expect(file.problems.map((p) => [p.line, p.reason.replace(/ \(.*\)$/, '')])).toEqual([
      [1, 'unknown field "job_id"'],
      [2, 'chain "c": not sent, because line 1 of the chain was refused'],
      [3, 'unknown field "Chain"'],
      [4, 'chain "d": not sent, because line 3 of the chain was refused'],
      [5, 'jobId: null'],
    ]);
  });

  it('refuses a CSV header without the projectId and prompt columns, naming what is missing', async () => {
    await expect(parsePromptText('in.csv', 'project,jobId,text\np,j,x\n', limits)).rejects.toThrow(
      new UsageError('in.csv: CSV header must name the columns projectId,prompt (and jobId, chain when used); missing projectId, prompt'),
    );
  });

  it('detects the format by extension, else by content', () => {
    expect(detectFormat('a.jsonl', 'projectId,jobId,prompt')).toBe('jsonl');
    expect(detectFormat('a.CSV', '{"x":1}')).toBe('csv');
    expect(detectFormat('prompts.txt', '\uFEFF  {"projectId":"p"}')).toBe('jsonl');
    expect(detectFormat('prompts', 'projectId,jobId,prompt')).toBe('csv');
  });

  it('refuses a missing, unreadable or empty file with a one-line usage error', async () => {
    const dir = fileTempDir('prompt-files');
    writeFileSync(join(dir, 'empty.jsonl'), '\n  \n');
    writeFileSync(join(dir, 'header-only.csv'), 'projectId,jobId,prompt\n');
    await expect(readPromptFile(join(dir, 'missing.jsonl'), limits)).rejects.toThrow(`${join(dir, 'missing.jsonl')}: cannot read the prompt file (no such file)`);
    await expect(readPromptFile(dir, limits)).rejects.toThrow(/is a directory/);
    await expect(readPromptFile(join(dir, 'empty.jsonl'), limits)).rejects.toThrow(/the prompt file is empty/);
    await expect(readPromptFile(join(dir, 'header-only.csv'), limits)).rejects.toThrow(/holds no prompts/);
    await expect(readPromptFile(join(dir, 'missing.jsonl'), limits)).rejects.toBeInstanceOf(UsageError);
  });
});

describe('a prompt file that is not UTF-8 text', () => {
  const dir = fileTempDir('prompt-encodings');
  const at = (name: string, bytes: Buffer) => {
    writeFileSync(join(dir, name), bytes);
    return join(dir, name);
  };

  it('is refused whole, naming the file and a NUL byte, when it is binary', async () => {
    const path = at('binary.jsonl', Buffer.concat([Buffer.from('{"projectId":"p"}\n'), Buffer.from([0x89, 0x50, 0x00, 0xff])]));
    await expect(readPromptFile(path, limits)).rejects.toThrow(new UsageError(`${path}: not a text file (a NUL byte at offset 20): a prompt file is UTF-8 JSONL or CSV`));
  });

  it('is refused whole, naming UTF-16, when it starts with a UTF-16 byte-order mark (either order)', async () => {
    const little = at('little.csv', Buffer.from('\uFEFFprojectId,prompt\np,hi\n', 'utf16le'));
    const big = at('big.csv', Buffer.from('\uFEFFprojectId,prompt\n', 'utf16le').swap16());
    for (const path of [little, big]) {
      await expect(readPromptFile(path, limits)).rejects.toThrow(new UsageError(`${path}: UTF-16 text (it starts with a UTF-16 byte-order mark), not UTF-8: save the prompt file as UTF-8`));
    }
  });

  it('is refused whole, naming the line of the first invalid byte, in another encoding', async () => {
    const latin1 = at('latin1.csv', Buffer.from('projectId,prompt\np,ok\np,caf\xe9\n', 'latin1'));
    await expect(readPromptFile(latin1, limits)).rejects.toThrow(new UsageError(`${latin1}: not UTF-8 text (an invalid byte sequence on line 3): save the prompt file as UTF-8`));
  });

  it('is read when it is UTF-8, with or without a byte-order mark', async () => {
    const path = at('utf8.csv', Buffer.from('\uFEFFprojectId,jobId,prompt\np,j,café ☕\n'));
    const file = await readPromptFile(path, limits);
    expect(file.problems).toEqual([]);
    expect(file.prompts.map((p) => p.prompt)).toEqual(['café ☕']);
  });
});

describe('ids from content', () => {
  const prompts = [
    { projectId: 'p', jobId: 'j', prompt: 'a' },
    { projectId: 'p', jobId: 'j', prompt: 'b' },
  ];

  it('names the same records the same batch, and any change another', () => {
    expect(batchIdFor(prompts)).toBe(batchIdFor(prompts.map((p) => ({ ...p }))));
    expect(batchIdFor(prompts)).toMatch(/^[0-9a-f]{16}$/);
    expect(batchIdFor([...prompts].reverse())).not.toBe(batchIdFor(prompts));
    expect(batchIdFor([{ projectId: 'p', jobId: 'ja', prompt: '' }])).not.toBe(batchIdFor([{ projectId: 'pj', jobId: 'a', prompt: '' }]));
    expect(batchIdFor(prompts, 'salt')).not.toBe(batchIdFor(prompts));
  });

  it('gives the same prompt at two positions two ids', () => {
    const batchId = batchIdFor(prompts);
    expect(promptIdFor(batchId, 0, prompts[0]!)).not.toBe(promptIdFor(batchId, 1, prompts[0]!));
    expect(promptIdFor(batchId, 0, prompts[0]!)).toBe(promptIdFor(batchId, 0, { ...prompts[0]! }));
  });
});

describe('a CSV record the CSV parser cannot read', () => {
  it('is reported once, at its own line, however many stray quotes it holds', async () => {
    const text = ['projectId,jobId,prompt', 'p,j1,say "hi" and "bye" now', 'p,j2,fine', 'p,j3,x"y', '', 'p,j4,"a"b"', 'p,j5,fine too'].join('\n');
    const file = await parsePromptText('in.csv', text, limits);
    expect(file.problems.map((p) => p.line)).toEqual([2, 4, 6]);
  });

  it('says when a quote it opens is never closed, so the rest of the file went into it and nothing after it is sent', async () => {
    const text = ['projectId,jobId,prompt', 'p,j1,fine', '"x"y,j2,z', 'p,j3,read into line 3'].join('\n');
    const file = await parsePromptText('in.csv', text, limits);
    expect(file.prompts.map((p) => p.jobId)).toEqual(['j1']);
    expect(file.problems).toEqual([
      { line: 3, reason: expect.stringMatching(/^CSV: Invalid Closing Quote/) },
      { line: 3, reason: 'CSV: a quote opened on this line is never closed, so every line after it was read into this record: none of them is sent (quote a prompt that holds quotes, doubling each " inside it)' },
    ]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('does not shift the line numbers of the good rows after it (%s)', async (_name, eol) => {
    const text = ['projectId,jobId,prompt', 'p,j1,say "hi" now', 'p,j2,fine', '', 'p,j3,"a"b"', 'p,j4,"two', 'lines"', '', 'p,j5,last'].join(eol);
    const file = await parsePromptText('in.csv', text, limits);
    expect(file.prompts.map((p) => [p.jobId, p.line])).toEqual([
      ['j2', 3],
      ['j4', 6],
      ['j5', 9],
    ]);
    expect(file.problems.map((p) => p.line)).toEqual([2, 5]);
  });
});

describe('a prompt file that is one JSON document rather than JSON Lines', () => {
  const row = { projectId: 'p', jobId: 'j1', prompt: 'hello' };

  it.each([
    ['an array on one line', 'prompts.json', JSON.stringify([row, row])],
    ['an array over several lines', 'prompts', JSON.stringify([row], null, 2)],
    ['an array in a .jsonl file', 'prompts.jsonl', JSON.stringify([row])],
    ['an object over several lines', 'prompt.json', JSON.stringify(row, null, 2)],
  ])('is refused whole in one line that says to put one object on each line: %s', async (_name, path, text) => {
    const parsing = parsePromptText(path, `${text}\n`, limits);
    await expect(parsing).rejects.toBeInstanceOf(UsageError);
    await expect(parsing).rejects.toThrow(new RegExp(`^${path}: one JSON (array|object) over the whole file, not JSON Lines: put each prompt object on a line of its own$`));
  });

  it('is not mistaken for one when it holds a single object on one line', async () => {
    const file = await parsePromptText('prompt.json', `${JSON.stringify(row)}\n`, limits);
    expect(file.prompts.map((p) => p.jobId)).toEqual(['j1']);
  });
});

describe('a prompt file path that cannot name a file', () => {
  it('says that a part of the path is a file, not a directory, instead of the system code ENOTDIR', async () => {
    const dir = fileTempDir('prompt-path');
    writeFileSync(join(dir, 'prompts.csv'), 'projectId,jobId,prompt\np,j,x\n');
    const path = join(dir, 'prompts.csv', 'x.jsonl');
    await expect(readPromptFile(path, limits)).rejects.toThrow(new UsageError(`${path}: cannot read the prompt file (a part of the path is a file, not a directory)`));
  });
});

describe('a CSV file separated by something other than commas', () => {
  it.each([
    // A spreadsheet's "CSV" in many locales, and a TSV export.
    ['semicolons', ';'],
    ['tabs', '\t'],
  ])('is refused whole in one line that names the %s, rather than say the columns are missing', async (name, separator) => {
    const text = `\uFEFF${['projectId', 'jobId', 'prompt'].join(separator)}\r\n${['p', 'j1', 'hello'].join(separator)}\r\n`;
    await expect(parsePromptText('in.csv', text, limits)).rejects.toThrow(
      new UsageError(`in.csv: the CSV header is separated by ${name}, not commas: save the file as comma-separated CSV (or write JSONL)`),
    );
  });
});
