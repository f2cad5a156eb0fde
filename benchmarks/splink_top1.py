"""The top-1 figure of a splink prediction, computed inside splink's DuckDB, shared by the linkage benchmarks.

For every intruder record (source dataset ``a_original``) its highest-weight released candidates; the record
counts ``1/t`` when its own record is among the ``t`` tied at the top (privaudit's tie rule). Columns:
``n_pairs`` (candidate pairs scored), ``credit`` (expected correct top-1 links), ``unique_own`` (records
whose own record is the single top candidate).
"""


def top1_sql(predictions: str) -> str:
    """SQL over splink's prediction table ``predictions`` (its physical name) giving the figures above."""
    return f"""
        WITH p AS (
            SELECT CASE WHEN source_dataset_l = 'a_original' THEN unique_id_l ELSE unique_id_r END AS i,
                   CASE WHEN source_dataset_l = 'a_original' THEN unique_id_r ELSE unique_id_l END AS j,
                   match_weight AS w
            FROM {predictions}),
        top AS (SELECT i, max(w) AS w FROM p GROUP BY i),
        t AS (SELECT p.i, count(*) AS ties, max(CASE WHEN p.i = p.j THEN 1 ELSE 0 END) AS own
              FROM p JOIN top ON p.i = top.i AND p.w = top.w GROUP BY p.i)
        SELECT (SELECT count(*) FROM p) AS n_pairs, sum(own::DOUBLE / ties) AS credit,
               sum(CASE WHEN own = 1 AND ties = 1 THEN 1 ELSE 0 END) AS unique_own
        FROM t"""
