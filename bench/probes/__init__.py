"""Probes run on their own (`python -m bench.probes.NAME`): the event-loop probe, soak, stall, stress, profiles, the App form."""
