"""Moodle XML import and export (issue 27, item 4): a question bank exchanged with the LMS most teachers use.

* xmlfile: reading a file safely (defusedxml; size, DTD and entity limits) and locating every problem;
* html: Moodle's HTML (or plain text, auto-format, Markdown) ↔ our Markdown with ``$…$`` math;
* mapping: one Moodle ``<question>`` → one of our questions, or why not (the mapping table is there);
* keys: imported questions' and options' keys, and :func:`keys.imported_from_moodle`, the one provenance rule;
* importer: ``lesson_moodle_import``, the service (validated as ``load_lessons`` validates, saved by its writer);
* exporter: ``lesson_moodle_export`` / ``selected_questions_moodle_export``, the reads behind the export.
"""
