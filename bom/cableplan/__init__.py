"""The cable plan: every link from port to port, expanded from the hop patterns."""
