"""Attention items and when a person is told of them: pure rules."""
