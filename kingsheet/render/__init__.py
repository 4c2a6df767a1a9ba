"""What people read: the sheet as rows, text, rich, PDF and XLSX. Imports core and render."""
