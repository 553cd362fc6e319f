"""The pure core: form declarations, values, the step function and continuation state."""
