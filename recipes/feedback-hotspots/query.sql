-- description: pages with at least min_items not-helpful feedback items with comments (contextual with helpful = false, or code-snippet feedback) in the window; one agent job per page, quoting up to max_quotes comments
-- reads: feedback, views
-- param min_items: 3
-- param max_quotes: 8
--
-- A recipe's query returns one row per agent job: project_id, subject (what the job is about),
-- impact (the order: highest first), items (Array(Tuple(id, text, at)): the reader input behind
-- it, newest first in the prompt) and any other columns its prompt.md names as {{column}}.
-- {project:String} ('' for every project), {since:Date} and each param are filled in by mintpipe.
WITH
  complaints AS (
    SELECT project_id, path, id, assumeNotNull(comment) AS text, ifNull(created_at, toDateTime64(date_from, 3, 'UTC')) AS at
    FROM feedback
    WHERE ({project:String} = '' OR project_id = {project:String})
      AND ifNull(created_at, toDateTime64(date_from, 3, 'UTC')) >= toDateTime64({since:Date}, 3, 'UTC')
      AND ((source = 'contextual' AND helpful = false) OR source = 'code_snippet')
      AND trimBoth(ifNull(comment, '')) != ''
    ORDER BY project_id, id, date_to DESC
    LIMIT 1 BY project_id, id
  ),
  views AS (
    SELECT project_id, path, sum(total) AS views
    FROM page_views
    WHERE ({project:String} = '' OR project_id = {project:String}) AND date_from >= {since:Date}
    GROUP BY project_id, path
  )
SELECT
  c.project_id AS project_id,
  c.path AS subject,
  count() AS complaints,
  any(v.views) AS page_views,
  count() * greatest(any(v.views), 1) AS impact,
  groupArray((c.id, c.text, toString(c.at))) AS items
FROM complaints AS c
LEFT JOIN views AS v ON v.project_id = c.project_id AND v.path = c.path
GROUP BY c.project_id, c.path
HAVING complaints >= {min_items:UInt32}
