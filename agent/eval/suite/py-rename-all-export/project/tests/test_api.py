import unittest

import api
import api.factory
from app import clients


class ApiTest(unittest.TestCase):
    def test_exports(self):
        self.assertIn("create_client", api.__all__)
        self.assertIn("create_client", api.factory.__all__)
        self.assertNotIn("make_client", api.factory.__all__)

    def test_clients(self):
        self.assertEqual(clients(), ["http://localhost", "http://x"])
