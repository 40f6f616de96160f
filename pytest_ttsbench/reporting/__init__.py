"""Rendering results for people: the terminal summary, leaderboards, reports."""
