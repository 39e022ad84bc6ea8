import unittest

from metrics.report import summarize


class ReportTest(unittest.TestCase):
    def test_summary(self):
        self.assertEqual(summarize(["bb", "aa", "bb", "42"]), ["aa: 1", "bb: 2"])
