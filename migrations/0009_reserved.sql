-- 0009: reserved for another change merged alongside 0010; this
-- placeholder keeps the steps gapless on its own branch. Drop it when the
-- real 0009 arrives.
SELECT 1;
