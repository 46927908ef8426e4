"""The op table's machinery: rows (`defop`), their nodes, the one recording path, array
backwards, the fast forms, in-place ops, views, argument checks and publishing."""
