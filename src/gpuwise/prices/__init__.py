"""Prices beyond the built-in catalog: public feeds refreshed into the user cache, and the
user's own quotes written as override files.

Edge code (like probe/): `fetch` is the only module here that opens a network connection, and
`store`/`userfile` the only ones that write files. The feed parsers (`azure`, `aws`, `gpuhunt`,
`skypilot`), `normalize`, `quotes` and `tomlw` are pure: text in, rows or TOML text out.
"""
