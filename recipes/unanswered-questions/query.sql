-- description: questions the assistant answered with a clarifying question or without citing any source, grouped by normalised query (lower-case, trimmed, whitespace collapsed; exact match); one agent job per group of at least min_items turns
-- reads: assistant
-- param min_items: 2
-- param max_quotes: 5
WITH turns AS (
  SELECT project_id, id, query, ifNull(timestamp, toDateTime64(date_from, 3, 'UTC')) AS at
  FROM assistant_conversations
  WHERE ({project:String} = '' OR project_id = {project:String})
    AND ifNull(timestamp, toDateTime64(date_from, 3, 'UTC')) >= toDateTime64({since:Date}, 3, 'UTC')
    AND (response_type = 'clarifying_question' OR length(sources) = 0)
  ORDER BY project_id, id, timestamp, date_to DESC
  -- A turn is its id with its timestamp: the spec lets the turns of one conversation share the id.
  LIMIT 1 BY project_id, id, timestamp
)
SELECT
  project_id,
  lowerUTF8(trimBoth(replaceRegexpAll(query, '\\s+', ' '))) AS subject,
  count() AS turns,
  count() AS impact,
  groupArray((id, query, toString(at))) AS items
FROM turns
WHERE subject != ''
GROUP BY project_id, subject
HAVING turns >= {min_items:UInt32}
