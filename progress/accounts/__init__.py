"""Accounts: the User model, sign-up, sign-in by username or e-mail with lockouts, roles."""
