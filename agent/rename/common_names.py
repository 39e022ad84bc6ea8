"""Member names of everyday built-in and standard-library types (`close`, `get`, `done`, `seek`,
...). An access `x.name` on a receiver of unknown type may well be one of these, so such names
are never renamed on untyped receivers."""

from __future__ import annotations

import functools


@functools.cache
def common_member_names() -> frozenset[str]:
    import argparse
    import asyncio
    import collections
    import concurrent.futures
    import contextlib
    import datetime
    import decimal
    import enum
    import fractions
    import functools as ft
    import inspect
    import io
    import json
    import logging
    import pathlib
    import queue
    import re
    import socket
    import subprocess
    import threading
    import types
    import unittest
    import weakref
    import zipfile

    kinds: list[type] = [
        object, int, float, complex, bool, str, bytes, bytearray, memoryview, list, tuple, dict, set, frozenset,
        type, BaseException, property, staticmethod, classmethod, range, slice,
        io.IOBase, io.TextIOWrapper, io.BufferedReader, io.BufferedWriter, io.BytesIO, io.StringIO, io.FileIO,
        concurrent.futures.Future, concurrent.futures.Executor, asyncio.Future, asyncio.Task,
        asyncio.AbstractEventLoop, asyncio.Queue, asyncio.StreamReader, asyncio.StreamWriter, asyncio.Event,
        threading.Thread, threading.Event, threading.Condition, type(threading.Lock()), queue.Queue,
        collections.OrderedDict, collections.defaultdict, collections.deque, collections.Counter,
        collections.ChainMap, pathlib.Path, enum.Enum, ft.partial, logging.Logger, logging.Handler,
        re.Pattern, re.Match, datetime.datetime, datetime.date, datetime.timedelta, datetime.time,
        subprocess.Popen, socket.socket, types.ModuleType, types.FunctionType, types.MethodType,
        types.SimpleNamespace, types.GeneratorType, types.CodeType, types.FrameType, weakref.ref,
        contextlib.ExitStack, argparse.ArgumentParser, argparse.Namespace, decimal.Decimal, fractions.Fraction,
        inspect.Signature, inspect.Parameter, inspect.BoundArguments, json.JSONEncoder, json.JSONDecoder,
        zipfile.ZipFile, unittest.TestCase,
    ]
    names: set[str] = set()
    for kind in kinds:
        names.update(dir(kind))
    return frozenset(names)
