"""Reading sheets filled elsewhere (XLSX, CSV) into game files."""
