import unittest

from pkg.loader import load
from pkg.report import Report
from pkg.rows import parse_line


class RowsTest(unittest.TestCase):
    def test_parse_line(self):
        self.assertEqual(parse_line(" a, b "), ["a", "b"])

    def test_load(self):
        self.assertEqual(load(["a,b", "c"]), [["a", "b"], ["c"]])

    def test_report_keeps_its_method(self):
        self.assertEqual(Report().parse_row("x:2"), ("x", 2))
