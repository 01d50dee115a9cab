"""PDF tables: ruled grids and whitespace-aligned (unruled) tables."""
