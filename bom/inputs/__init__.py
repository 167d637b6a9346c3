"""What the user gives: scenario files, their validation, the starter scenario."""
