// Placeholder so the package graph resolves while this target is written; delete it once real sources exist.
