"""Security content (SL80x): the texts the model reads, the one-pass search for marks in them,
hidden characters, hidden and overriding instructions, credentials, and code fetched and run in
one step."""
