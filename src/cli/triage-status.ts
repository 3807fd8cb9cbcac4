/** `mintpipe triage status`: one line per triaged subject, from the `triage_items` view. */
export async function triageStatus(format: string): Promise<void> {
  const { readWarehouse } = await import('./read-warehouse.js');
  const result = await readWarehouse(
    `SELECT recipe, project_id, subject, batch_id, prompt_id, any(job_id) AS job_id, any(status) AS status, any(pr_link) AS pr_link,
            count() AS items, any(submitted_at) AS submitted_at
     FROM triage_items GROUP BY recipe, project_id, subject, batch_id, prompt_id ORDER BY submitted_at DESC, recipe, project_id, subject LIMIT 1000`,
    { timeoutMs: 30_000, maxRows: 1000 },
    'triage',
  );
  if (format === 'json') {
    process.stdout.write(`${JSON.stringify(result.rows, null, 2)}\n`);
    return;
  }
  if (result.rows.length === 0) process.stdout.write('nothing triaged yet (`mintpipe triage run NAME --allow-create`)\n');
  for (const r of result.rows) {
    const job = r.job_id ? `job ${String(r.job_id)}` : 'no job yet';
    process.stdout.write(`${String(r.recipe)}  ${String(r.project_id)}  ${String(r.subject)}: ${Number(r.items)} item(s) → batch ${String(r.batch_id)}, ${job}, ${String(r.status)}${r.pr_link ? `, ${String(r.pr_link)}` : ''}\n`);
  }
}
