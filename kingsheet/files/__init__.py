"""Game files and sheets on disk: reading, editing, saving, importing. Imports core and files."""
