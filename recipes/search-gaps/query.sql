-- description: search terms with at least min_hits hits in the window and no clicks (ctr 0 and no top clicked page in every window), grouped by normalised term; one agent job per term
-- reads: searches
-- param min_hits: 3
-- param max_quotes: 5
SELECT
  project_id,
  lowerUTF8(trimBoth(replaceRegexpAll(search_query, '\\s+', ' '))) AS subject,
  sum(hits) AS searched,
  sum(hits) AS impact,
  arrayMap(q -> (q, q, ''), arraySort(groupUniqArray(search_query))) AS items
FROM searches
WHERE ({project:String} = '' OR project_id = {project:String}) AND date_from >= {since:Date}
GROUP BY project_id, subject
HAVING subject != '' AND max(ctr) = 0 AND countIf(top_clicked_page IS NOT NULL) = 0 AND searched >= {min_hits:UInt32}
