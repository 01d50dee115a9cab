"""OCR of scanned pages (placeholder until the OCR step lands)."""
