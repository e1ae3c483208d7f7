-- The tool groups a grant's tools/list shows (a JSON list of names); NULL: every group.
-- The built-in grants are kept in step with the code at every open.
ALTER TABLE grants ADD COLUMN groups TEXT;
