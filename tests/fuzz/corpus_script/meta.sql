\set x CASE WHEN 1 < 2 THEN hash(3, 5) ELSE permute(1, 10, 2) END
\if :x IS NOT NULL AND NOT false
\sleep 1 ms
\elif 2 >= 1
SELECT 1 \gset p_
\else
\endif
