-- SQLite compares -0.0 and 0.0 as equal, yet stores and returns each with its sign. Without
-- this, writing -0.0 over 0.0 (or back) from a plain SQL client would log nothing, and other
-- stores would never hear of it. A REAL zero is therefore always logged; readers compare the
-- value they read bit for bit, so rewriting the same zero still notifies nobody.
DROP TRIGGER defaults_log_update;
CREATE TRIGGER defaults_log_update AFTER UPDATE ON defaults
WHEN old.value IS NOT new.value OR typeof(old.value) IS NOT typeof(new.value) OR old.key IS NOT new.key
    OR (typeof(new.value) = 'real' AND new.value = 0.0)
BEGIN
    INSERT INTO defaults_changes(key) VALUES (new.key);
    INSERT INTO defaults_changes(key) SELECT old.key WHERE old.key IS NOT new.key;
END;
