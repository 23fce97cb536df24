-- 0010: reserved for another change merged alongside 0011; this
-- placeholder keeps the steps gapless on its own branch. Drop it when the
-- real 0010 arrives.
SELECT 1;
