"""What every verb of the command line shares: its exit statuses and the usage error."""

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    """A command line that cannot be run as given: one line on stderr, exit 2."""
