#!/usr/bin/env python3
"""Generate the fixdex bundled sample corpus of bug-fix pairs (BFPs).

Every bug-fix pair below was written by the fixdex project for the quickstart
demo and the test-suite; none is copied from a third-party dataset.  The corpus
is licensed MIT OR Apache-2.0, like the rest of the project.

Usage:
    python3 scripts/make-sample.py            # writes data/sample/sample.jsonl
    python3 scripts/make-sample.py --check    # validate only, write nothing
    python3 scripts/make-sample.py --out PATH # write somewhere else

The output is deterministic: records are written in definition order, with a
fixed key order, UTF-8, one JSON object per line.  The script validates the
records (unique ids, buggy != fixed, no duplicate pairs, Python snippets parse,
Java snippets have balanced brackets, non-empty root causes) and exits
non-zero if any check fails.  It prints per-language and per-category counts
as a Markdown table on stdout.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import sys
import textwrap
from collections import Counter
from pathlib import Path

SOURCE = "fixdex-sample"
LICENSE = "MIT OR Apache-2.0"
LANGUAGES = ("java", "python")

# Bug categories (meta.category).  Order is used for the summary table.
CATEGORIES = (
    "off-by-one",
    "wrong-operator",
    "missing-null-check",
    "float-comparison",
    "resource-leak",
    "boundary-condition",
    "swapped-arguments",
    "integer-division",
    "wrong-variable",
    "mutable-default-argument",
    "concurrent-modification",
    "wrong-equality",
    "missing-return-or-break",
    "exception-handling",
    "recursion-base-case",
    "accumulator-init",
    "string-encoding",
    "concurrency",
    "hashcode-equals",
    "date-time",
    "regex-escaping",
)

RECORDS: list[dict] = []


def _code(text: str) -> str:
    """Normalise a snippet: dedent, drop surrounding blank lines, end with one newline."""
    return textwrap.dedent(text).strip("\n") + "\n"


def bfp(lang, slug, project, file, category, description, root_cause, buggy, fixed):
    """Register one bug-fix pair."""
    RECORDS.append(
        {
            "lang": lang,
            "slug": slug,
            "project": project,
            "file": file,
            "category": category,
            "description": description,
            "root_cause": " ".join(root_cause.split()),
            "buggy": _code(buggy),
            "fixed": _code(fixed),
        }
    )


def J(slug, project, file, category, description, root_cause, buggy, fixed):
    bfp("java", slug, project, file, category, description, root_cause, buggy, fixed)


def P(slug, project, file, category, description, root_cause, buggy, fixed):
    bfp("python", slug, project, file, category, description, root_cause, buggy, fixed)


def jfile(project: str, cls: str) -> str:
    """Plausible Maven-style path for a Java class in a sample project."""
    pkg = project.split("/", 1)[1]
    return f"src/main/java/sample/{pkg}/{cls}.java"


def pfile(project: str, module: str) -> str:
    """Plausible package path for a Python module in a sample project."""
    pkg = project.split("/", 1)[1]
    return f"{pkg}/{module}.py"


COLL = "sample/collections"
MATH = "sample/mathutil"
IO = "sample/io"
TEXT = "sample/textproc"
GEOM = "sample/geometry"
NET = "sample/net"
BILL = "sample/billing"
SCHED = "sample/scheduler"
CONF = "sample/config"

# ---------------------------------------------------------------------------
# off-by-one
# ---------------------------------------------------------------------------

J("binary-search-off-by-one", COLL, jfile(COLL, "ArrayUtils"), "off-by-one",
  "Fix off-by-one in binary search upper bound",
  """The upper bound is initialised to keys.length but the loop treats hi as
  inclusive, so when the key is larger than every element the search reads
  keys[keys.length] and throws ArrayIndexOutOfBoundsException.""",
  r"""
public static int indexOf(int[] keys, int key) {
    int lo = 0;
    int hi = keys.length;
    while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        if (keys[mid] < key) {
            lo = mid + 1;
        } else if (keys[mid] > key) {
            hi = mid - 1;
        } else {
            return mid;
        }
    }
    return -1;
}
""",
  r"""
public static int indexOf(int[] keys, int key) {
    int lo = 0;
    int hi = keys.length - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        if (keys[mid] < key) {
            lo = mid + 1;
        } else if (keys[mid] > key) {
            hi = mid - 1;
        } else {
            return mid;
        }
    }
    return -1;
}
""")

J("last-n-chars-substring", TEXT, jfile(TEXT, "Strings"), "off-by-one",
  "Return exactly n trailing characters in lastChars",
  """substring(begin) keeps everything from begin to the end, so starting at
  length() - n - 1 returns n + 1 characters and throws
  StringIndexOutOfBoundsException when n equals the string length.""",
  r"""
public static String lastChars(String s, int n) {
    if (n <= 0) {
        return "";
    }
    if (n > s.length()) {
        return s;
    }
    return s.substring(s.length() - n - 1);
}
""",
  r"""
public static String lastChars(String s, int n) {
    if (n <= 0) {
        return "";
    }
    if (n > s.length()) {
        return s;
    }
    return s.substring(s.length() - n);
}
""")

J("moving-average-misses-last-window", MATH, jfile(MATH, "Series"), "off-by-one",
  "Include the final window in movingAverage",
  """There are xs.length - window + 1 complete windows, but the loop condition
  uses i < xs.length - window, so the last window is never averaged and the
  result array has one trailing zero.""",
  r"""
public static double[] movingAverage(double[] xs, int window) {
    if (window <= 0 || window > xs.length) {
        throw new IllegalArgumentException("bad window: " + window);
    }
    double[] out = new double[xs.length - window + 1];
    for (int i = 0; i < xs.length - window; i++) {
        double sum = 0.0;
        for (int j = i; j < i + window; j++) {
            sum += xs[j];
        }
        out[i] = sum / window;
    }
    return out;
}
""",
  r"""
public static double[] movingAverage(double[] xs, int window) {
    if (window <= 0 || window > xs.length) {
        throw new IllegalArgumentException("bad window: " + window);
    }
    double[] out = new double[xs.length - window + 1];
    for (int i = 0; i <= xs.length - window; i++) {
        double sum = 0.0;
        for (int j = i; j < i + window; j++) {
            sum += xs[j];
        }
        out[i] = sum / window;
    }
    return out;
}
""")

J("chunk-drops-last-element", COLL, jfile(COLL, "ListUtils"), "off-by-one",
  "Stop chunk() from dropping the last element",
  """subList takes an exclusive end index, but the end is clamped to
  items.size() - 1, so the final chunk always loses the last element of the
  list.""",
  r"""
public static <T> List<List<T>> chunk(List<T> items, int size) {
    if (size <= 0) {
        throw new IllegalArgumentException("size must be positive");
    }
    List<List<T>> chunks = new ArrayList<>();
    for (int i = 0; i < items.size(); i += size) {
        int end = Math.min(i + size, items.size() - 1);
        chunks.add(new ArrayList<>(items.subList(i, end)));
    }
    return chunks;
}
""",
  r"""
public static <T> List<List<T>> chunk(List<T> items, int size) {
    if (size <= 0) {
        throw new IllegalArgumentException("size must be positive");
    }
    List<List<T>> chunks = new ArrayList<>();
    for (int i = 0; i < items.size(); i += size) {
        int end = Math.min(i + size, items.size());
        chunks.add(new ArrayList<>(items.subList(i, end)));
    }
    return chunks;
}
""")

P("is-sorted-skips-last-pair", COLL, pfile(COLL, "checks"), "off-by-one",
  "Compare the last adjacent pair in is_sorted",
  """The loop compares xs[i] with xs[i + 1], so i must run up to len(xs) - 2
  inclusive; range(len(xs) - 2) stops one index earlier and the final pair is
  never checked, so [1, 2, 0] is reported as sorted.""",
  r"""
def is_sorted(xs, key=None):
    key = key or (lambda v: v)
    for i in range(len(xs) - 2):
        if key(xs[i]) > key(xs[i + 1]):
            return False
    return True
""",
  r"""
def is_sorted(xs, key=None):
    key = key or (lambda v: v)
    for i in range(len(xs) - 1):
        if key(xs[i]) > key(xs[i + 1]):
            return False
    return True
""")

P("fixed-width-slice-end", TEXT, pfile(TEXT, "fixedwidth"), "off-by-one",
  "Fix truncated fields when parsing fixed-width records",
  """Python slices exclude their end index, so line[pos:pos + width - 1]
  takes one character less than the field width and the last character of
  every column is lost.""",
  r"""
def parse_fixed_width(line, widths):
    fields = []
    pos = 0
    for width in widths:
        fields.append(line[pos:pos + width - 1].strip())
        pos += width
    return fields
""",
  r"""
def parse_fixed_width(line, widths):
    fields = []
    pos = 0
    for width in widths:
        fields.append(line[pos:pos + width].strip())
        pos += width
    return fields
""")

P("paginate-one-based-page", NET, pfile(NET, "pagination"), "off-by-one",
  "Treat page numbers as 1-based in paginate",
  """The API documents page numbers starting at 1, but the start offset is
  computed as page * per_page, so page 1 returns the second page of results
  and the first per_page items can never be fetched.""",
  r"""
def paginate(items, page, per_page=20):
    if page < 1:
        raise ValueError("page must be >= 1")
    start = page * per_page
    end = start + per_page
    return {
        "page": page,
        "items": items[start:end],
        "has_next": end < len(items),
    }
""",
  r"""
def paginate(items, page, per_page=20):
    if page < 1:
        raise ValueError("page must be >= 1")
    start = (page - 1) * per_page
    end = start + per_page
    return {
        "page": page,
        "items": items[start:end],
        "has_next": end < len(items),
    }
""")

P("harmonic-range-excludes-n", MATH, pfile(MATH, "series"), "off-by-one",
  "Include the n-th term in harmonic()",
  """range(1, n) stops at n - 1 because the end bound is exclusive, so the
  n-th term 1/n is never added and harmonic(1) returns 0 instead of 1.""",
  r"""
def harmonic(n):
    if n < 0:
        raise ValueError("n must be non-negative")
    total = 0.0
    for k in range(1, n):
        total += 1.0 / k
    return total
""",
  r"""
def harmonic(n):
    if n < 0:
        raise ValueError("n must be non-negative")
    total = 0.0
    for k in range(1, n + 1):
        total += 1.0 / k
    return total
""")

# ---------------------------------------------------------------------------
# wrong-operator
# ---------------------------------------------------------------------------

J("leap-year-logic", SCHED, jfile(SCHED, "Calendars"), "wrong-operator",
  "Fix leap-year rule for centuries",
  """The three divisibility tests are all joined with &&, but a year cannot be
  divisible by 400 while not divisible by 100, so the expression is always
  false and no year is ever treated as a leap year.""",
  r"""
public static boolean isLeapYear(int year) {
    if (year < 1583) {
        throw new IllegalArgumentException("Gregorian calendar only: " + year);
    }
    return year % 4 == 0 && year % 100 != 0 && year % 400 == 0;
}
""",
  r"""
public static boolean isLeapYear(int year) {
    if (year < 1583) {
        throw new IllegalArgumentException("Gregorian calendar only: " + year);
    }
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}
""")

J("rect-contains-or-instead-of-and", GEOM, jfile(GEOM, "Rect"), "wrong-operator",
  "Use && when testing whether a point lies in a rectangle",
  """A point is inside only if all four edge tests hold, but the conditions are
  combined with ||, so any point to the right of the left edge (or below the
  top edge) is reported as contained.""",
  r"""
public boolean contains(double px, double py) {
    if (Double.isNaN(px) || Double.isNaN(py)) {
        return false;
    }
    return px >= left || px <= left + width
        || py >= top || py <= top + height;
}
""",
  r"""
public boolean contains(double px, double py) {
    if (Double.isNaN(px) || Double.isNaN(py)) {
        return false;
    }
    return px >= left && px <= left + width
        && py >= top && py <= top + height;
}
""")

J("tcp-flag-bitwise-or", NET, jfile(NET, "TcpHeader"), "wrong-operator",
  "Test the ACK flag with bitwise AND",
  """flags | FLAG_ACK sets the ACK bit instead of testing it, so the result is
  never zero and every segment is treated as an acknowledgement.""",
  r"""
private static final int FLAG_ACK = 0x10;

public static boolean isAck(int flags) {
    return (flags | FLAG_ACK) != 0;
}
""",
  r"""
private static final int FLAG_ACK = 0x10;

public static boolean isAck(int flags) {
    return (flags & FLAG_ACK) != 0;
}
""")

J("discount-adds-instead-of-subtracts", BILL, jfile(BILL, "Pricing"), "wrong-operator",
  "Subtract the discount instead of adding it",
  """The discount amount is added to the subtotal with += instead of being
  subtracted, so applying a 10% coupon increases the price by 10%.""",
  r"""
public static long applyDiscount(long subtotalCents, int percentOff) {
    if (percentOff < 0 || percentOff > 100) {
        throw new IllegalArgumentException("percentOff out of range: " + percentOff);
    }
    long total = subtotalCents;
    total += subtotalCents * percentOff / 100;
    return total;
}
""",
  r"""
public static long applyDiscount(long subtotalCents, int percentOff) {
    if (percentOff < 0 || percentOff > 100) {
        throw new IllegalArgumentException("percentOff out of range: " + percentOff);
    }
    long total = subtotalCents;
    total -= subtotalCents * percentOff / 100;
    return total;
}
""")

P("can-edit-precedence", CONF, pfile(CONF, "permissions"), "wrong-operator",
  "Parenthesise the lock check in can_edit",
  """'and' binds tighter than 'or', so the expression reads
  is_admin or (is_owner and not locked); admins can still edit a locked
  document even though the lock is meant to apply to everyone.""",
  r"""
def can_edit(user, document):
    if user is None:
        return False
    is_admin = "admin" in user.roles
    is_owner = document.owner_id == user.id
    return is_admin or is_owner and not document.locked
""",
  r"""
def can_edit(user, document):
    if user is None:
        return False
    is_admin = "admin" in user.roles
    is_owner = document.owner_id == user.id
    return (is_admin or is_owner) and not document.locked
""")

P("distance-xor-instead-of-power", GEOM, pfile(GEOM, "distance"), "wrong-operator",
  "Square coordinates with ** instead of ^",
  """In Python ^ is bitwise XOR, not exponentiation, so dx ^ 2 is not the
  square of dx (and raises TypeError for floats), giving wrong distances.""",
  r"""
import math


def euclidean(p, q):
    dx = q[0] - p[0]
    dy = q[1] - p[1]
    return math.sqrt(dx ^ 2 + dy ^ 2)
""",
  r"""
import math


def euclidean(p, q):
    dx = q[0] - p[0]
    dy = q[1] - p[1]
    return math.sqrt(dx ** 2 + dy ** 2)
""")

P("port-range-and-never-true", NET, pfile(NET, "address"), "wrong-operator",
  "Reject out-of-range ports",
  """A port cannot be both negative and above 65535, so joining the two checks
  with 'and' makes the condition always false and invalid ports are accepted.""",
  r"""
def parse_port(text):
    port = int(text)
    if port < 0 and port > 65535:
        raise ValueError(f"port out of range: {port}")
    return port
""",
  r"""
def parse_port(text):
    port = int(text)
    if port < 0 or port > 65535:
        raise ValueError(f"port out of range: {port}")
    return port
""")

# ---------------------------------------------------------------------------
# missing-null-check
# ---------------------------------------------------------------------------

J("word-count-unboxes-null", COLL, jfile(COLL, "WordCounter"), "missing-null-check",
  "Handle first occurrence of a word in word counts",
  """Map.get returns null for a word that has not been seen yet, and unboxing
  that null Integer for the + 1 throws NullPointerException on the first
  occurrence of every word.""",
  r"""
public static Map<String, Integer> countWords(List<String> words) {
    Map<String, Integer> counts = new HashMap<>();
    for (String w : words) {
        String key = w.toLowerCase(Locale.ROOT);
        counts.put(key, counts.get(key) + 1);
    }
    return counts;
}
""",
  r"""
public static Map<String, Integer> countWords(List<String> words) {
    Map<String, Integer> counts = new HashMap<>();
    for (String w : words) {
        String key = w.toLowerCase(Locale.ROOT);
        counts.merge(key, 1, Integer::sum);
    }
    return counts;
}
""")

J("timeout-property-missing", CONF, jfile(CONF, "Settings"), "missing-null-check",
  "Fall back to default timeout when the property is absent",
  """Properties.getProperty returns null when the key is not configured, so
  calling trim() on the result throws NullPointerException instead of using
  the default timeout.""",
  r"""
public static long timeoutMillis(Properties props) {
    String raw = props.getProperty("http.timeout.ms");
    raw = raw.trim();
    if (raw.isEmpty()) {
        return DEFAULT_TIMEOUT_MS;
    }
    return Long.parseLong(raw);
}
""",
  r"""
public static long timeoutMillis(Properties props) {
    String raw = props.getProperty("http.timeout.ms");
    if (raw == null || raw.trim().isEmpty()) {
        return DEFAULT_TIMEOUT_MS;
    }
    return Long.parseLong(raw.trim());
}
""")

J("status-equals-on-null", NET, jfile(NET, "HealthCheck"), "missing-null-check",
  "Avoid NPE when the status header is missing",
  """status comes from an optional response header and can be null, and
  calling status.equals(...) on it throws NullPointerException; comparing from
  the constant side handles the missing header as not healthy.""",
  r"""
public static boolean isHealthy(Map<String, String> headers) {
    if (headers.isEmpty()) {
        return false;
    }
    String status = headers.get("X-Service-Status");
    return status.equals("UP") || status.equals("DEGRADED");
}
""",
  r"""
public static boolean isHealthy(Map<String, String> headers) {
    if (headers.isEmpty()) {
        return false;
    }
    String status = headers.get("X-Service-Status");
    return "UP".equals(status) || "DEGRADED".equals(status);
}
""")

J("content-type-header-null", NET, jfile(NET, "MediaTypes"), "missing-null-check",
  "Default the charset when Content-Type is absent",
  """The Content-Type header is optional, so header can be null and
  header.split(";") throws NullPointerException for responses that do not
  send it.""",
  r"""
public static String charsetOf(String header) {
    for (String part : header.split(";")) {
        String p = part.trim();
        if (p.regionMatches(true, 0, "charset=", 0, 8)) {
            return p.substring(8).replace("\"", "");
        }
    }
    return "UTF-8";
}
""",
  r"""
public static String charsetOf(String header) {
    if (header == null) {
        return "UTF-8";
    }
    for (String part : header.split(";")) {
        String p = part.trim();
        if (p.regionMatches(true, 0, "charset=", 0, 8)) {
            return p.substring(8).replace("\"", "");
        }
    }
    return "UTF-8";
}
""")

P("regex-match-none", TEXT, pfile(TEXT, "versions"), "missing-null-check",
  "Return None when no version string is found",
  """re.search returns None when the text has no version number, and calling
  .group(1) on None raises AttributeError instead of reporting that no version
  was found.""",
  r"""
import re

_VERSION = re.compile(r"v?(\d+\.\d+(?:\.\d+)?)")


def extract_version(banner):
    m = _VERSION.search(banner)
    return m.group(1)
""",
  r"""
import re

_VERSION = re.compile(r"v?(\d+\.\d+(?:\.\d+)?)")


def extract_version(banner):
    m = _VERSION.search(banner)
    if m is None:
        return None
    return m.group(1)
""")

P("env-port-none", CONF, pfile(CONF, "env"), "missing-null-check",
  "Use the default port when PORT is unset",
  """os.environ.get returns None when the variable is not set, and int(None)
  raises TypeError, so the service crashes at start-up instead of listening on
  the default port.""",
  r"""
import os


def listen_port(default=8080):
    value = os.environ.get("PORT")
    port = int(value)
    if port <= 0:
        return default
    return port
""",
  r"""
import os


def listen_port(default=8080):
    value = os.environ.get("PORT")
    if value is None or not value.strip():
        return default
    port = int(value)
    if port <= 0:
        return default
    return port
""")

P("full-name-optional-middle", BILL, pfile(BILL, "customers"), "missing-null-check",
  "Skip the middle name when it is not given",
  """middle defaults to None, and concatenating None to a str raises
  TypeError, so every customer without a middle name breaks invoice
  rendering.""",
  r"""
def full_name(first, last, middle=None):
    first = first.strip()
    last = last.strip()
    if not first:
        return last
    return first + " " + middle + " " + last
""",
  r"""
def full_name(first, last, middle=None):
    first = first.strip()
    last = last.strip()
    if not first:
        return last
    if not middle:
        return first + " " + last
    return first + " " + middle + " " + last
""")

# ---------------------------------------------------------------------------
# float-comparison (floating-point equality, NaN, negative zero)
# ---------------------------------------------------------------------------

J("right-triangle-double-equality", GEOM, jfile(GEOM, "Triangles"), "float-comparison",
  "Compare squared sides with a tolerance",
  """a*a + b*b and c*c are computed with rounding error, so comparing the two
  doubles with == rejects valid right triangles such as (0.5, 1.2, 1.3); the
  comparison needs a relative tolerance.""",
  r"""
public static boolean isRightTriangle(double a, double b, double c) {
    double[] s = {a, b, c};
    Arrays.sort(s);
    return s[0] * s[0] + s[1] * s[1] == s[2] * s[2];
}
""",
  r"""
private static final double REL_EPS = 1e-9;

public static boolean isRightTriangle(double a, double b, double c) {
    double[] s = {a, b, c};
    Arrays.sort(s);
    double lhs = s[0] * s[0] + s[1] * s[1];
    double rhs = s[2] * s[2];
    return Math.abs(lhs - rhs) <= REL_EPS * Math.max(Math.abs(lhs), Math.abs(rhs));
}
""")

J("offset-prints-negative-zero", GEOM, jfile(GEOM, "Offsets"), "float-comparison",
  "Do not print -0.00 for a zero offset",
  """Multiplying 0.0 by a direction of -1 yields negative zero, and
  String.format keeps the sign of -0.0 (and of tiny negative values that round
  to zero), so the label reads "-0.00 m".""",
  r"""
public static String formatOffset(double meters, int direction) {
    if (direction != 1 && direction != -1) {
        throw new IllegalArgumentException("direction must be +1 or -1");
    }
    double offset = meters * direction;
    return String.format(Locale.ROOT, "%.2f m", offset);
}
""",
  r"""
public static String formatOffset(double meters, int direction) {
    if (direction != 1 && direction != -1) {
        throw new IllegalArgumentException("direction must be +1 or -1");
    }
    double offset = meters * direction;
    if (Math.abs(offset) < 0.005) {
        offset = 0.0;
    }
    return String.format(Locale.ROOT, "%.2f m", offset);
}
""")

J("nan-compared-with-equals", MATH, jfile(MATH, "Stats"), "float-comparison",
  "Detect NaN samples with Double.isNaN",
  """NaN is not equal to anything, including Double.NaN itself, so
  x == Double.NaN is always false; missing samples are never skipped and the
  mean becomes NaN.""",
  r"""
public static double meanIgnoringMissing(double[] samples) {
    double sum = 0.0;
    int n = 0;
    for (double x : samples) {
        if (x == Double.NaN) {
            continue;
        }
        sum += x;
        n++;
    }
    return n == 0 ? Double.NaN : sum / n;
}
""",
  r"""
public static double meanIgnoringMissing(double[] samples) {
    double sum = 0.0;
    int n = 0;
    for (double x : samples) {
        if (Double.isNaN(x)) {
            continue;
        }
        sum += x;
        n++;
    }
    return n == 0 ? Double.NaN : sum / n;
}
""")

J("comparator-truncates-double-difference", GEOM, jfile(GEOM, "NearestFirst"), "float-comparison",
  "Use Double.compare when sorting by distance",
  """The comparator casts the difference of two doubles to int, which truncates
  any gap smaller than 1.0 to 0, so points at distances 0.2 and 0.9 compare as
  equal and the k points returned are not necessarily the nearest ones.""",
  r"""
public static List<double[]> nearest(List<double[]> points, double ox, double oy, int k) {
    List<double[]> sorted = new ArrayList<>(points);
    sorted.sort((p, q) -> (int) (Math.hypot(p[0] - ox, p[1] - oy)
            - Math.hypot(q[0] - ox, q[1] - oy)));
    return sorted.subList(0, Math.min(k, sorted.size()));
}
""",
  r"""
public static List<double[]> nearest(List<double[]> points, double ox, double oy, int k) {
    List<double[]> sorted = new ArrayList<>(points);
    sorted.sort((p, q) -> Double.compare(Math.hypot(p[0] - ox, p[1] - oy),
            Math.hypot(q[0] - ox, q[1] - oy)));
    return sorted.subList(0, Math.min(k, sorted.size()));
}
""")

P("fully-paid-float-equality", BILL, pfile(BILL, "payments"), "float-comparison",
  "Compare paid and due amounts with a tolerance",
  """Summing float payments accumulates binary rounding error (0.1 + 0.2 is
  0.30000000000000004), so testing equality with == reports exactly paid
  invoices as still open.""",
  r"""
def is_fully_paid(amount_due, payments):
    if amount_due <= 0:
        return True
    paid = sum(p.amount for p in payments)
    return paid == amount_due
""",
  r"""
import math


def is_fully_paid(amount_due, payments):
    if amount_due <= 0:
        return True
    paid = sum(p.amount for p in payments)
    return paid > amount_due or math.isclose(paid, amount_due, abs_tol=0.005)
""")

P("nan-equality-check", MATH, pfile(MATH, "cleaning"), "float-comparison",
  "Drop NaN readings with math.isnan",
  """NaN never compares equal to anything, including another NaN, so
  r == float("nan") is always false and NaN readings survive the cleaning
  step.""",
  r"""
def clean_readings(readings):
    cleaned = []
    for r in readings:
        if r is None or r == float("nan"):
            continue
        cleaned.append(float(r))
    return cleaned
""",
  r"""
import math


def clean_readings(readings):
    cleaned = []
    for r in readings:
        if r is None or math.isnan(r):
            continue
        cleaned.append(float(r))
    return cleaned
""")

P("trend-negative-zero", MATH, pfile(MATH, "display"), "float-comparison",
  "Avoid showing -0.0 for tiny negative trends",
  """Formatting keeps the sign of negative zero, so a small negative delta such
  as -0.04 is rounded to -0.0 and displayed as "-0.0" instead of "0.0".""",
  r"""
def format_trend(delta):
    if delta is None:
        return "n/a"
    if delta == 0:
        return "0.0"
    return f"{delta:+.1f}"
""",
  r"""
def format_trend(delta):
    if delta is None:
        return "n/a"
    rounded = round(delta, 1) + 0.0  # adding 0.0 turns -0.0 into 0.0
    if rounded == 0:
        return "0.0"
    return f"{rounded:+.1f}"
""")

# ---------------------------------------------------------------------------
# resource-leak
# ---------------------------------------------------------------------------

J("count-lines-reader-not-closed", IO, jfile(IO, "LineCounter"), "resource-leak",
  "Close the reader in countLines",
  """The BufferedReader is never closed, so every call leaks a file handle, and
  a long-running process eventually fails with "Too many open files".""",
  r"""
public static long countLines(Path path) throws IOException {
    BufferedReader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8);
    long count = 0;
    while (reader.readLine() != null) {
        count++;
    }
    return count;
}
""",
  r"""
public static long countLines(Path path) throws IOException {
    try (BufferedReader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
        long count = 0;
        while (reader.readLine() != null) {
            count++;
        }
        return count;
    }
}
""")

J("jdbc-connection-leak", BILL, jfile(BILL, "InvoiceDao"), "resource-leak",
  "Release JDBC resources in invoiceTotal",
  """The connection, statement and result set are never closed, so each call
  keeps a pooled connection checked out until the pool is exhausted and
  requests start timing out.""",
  r"""
public long invoiceTotal(long invoiceId) throws SQLException {
    Connection conn = dataSource.getConnection();
    PreparedStatement ps = conn.prepareStatement(
            "SELECT SUM(amount_cents) FROM invoice_line WHERE invoice_id = ?");
    ps.setLong(1, invoiceId);
    ResultSet rs = ps.executeQuery();
    return rs.next() ? rs.getLong(1) : 0L;
}
""",
  r"""
public long invoiceTotal(long invoiceId) throws SQLException {
    try (Connection conn = dataSource.getConnection();
         PreparedStatement ps = conn.prepareStatement(
                 "SELECT SUM(amount_cents) FROM invoice_line WHERE invoice_id = ?")) {
        ps.setLong(1, invoiceId);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0L;
        }
    }
}
""")

J("socket-not-closed-on-error", NET, jfile(NET, "Pinger"), "resource-leak",
  "Always close the socket in sendPing",
  """The socket is closed only on the success path; if write or read throws,
  close() is skipped and the socket's file descriptor leaks.""",
  r"""
public static boolean sendPing(String host, int port) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(host, port), 2000);
    OutputStream out = socket.getOutputStream();
    out.write("PING\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
    int reply = socket.getInputStream().read();
    socket.close();
    return reply == '+';
}
""",
  r"""
public static boolean sendPing(String host, int port) throws IOException {
    try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), 2000);
        OutputStream out = socket.getOutputStream();
        out.write("PING\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        int reply = socket.getInputStream().read();
        return reply == '+';
    }
}
""")

J("copy-streams-leak-on-exception", IO, jfile(IO, "FileCopy"), "resource-leak",
  "Use try-with-resources when copying files",
  """Both streams are closed only after the copy loop finishes; if opening the
  output or any read/write throws, the already-open input stream is never
  closed.""",
  r"""
public static void copy(File src, File dst) throws IOException {
    InputStream in = new FileInputStream(src);
    OutputStream out = new FileOutputStream(dst);
    byte[] buf = new byte[8192];
    int n;
    while ((n = in.read(buf)) != -1) {
        out.write(buf, 0, n);
    }
    out.close();
    in.close();
}
""",
  r"""
public static void copy(File src, File dst) throws IOException {
    try (InputStream in = new FileInputStream(src);
         OutputStream out = new FileOutputStream(dst)) {
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) != -1) {
            out.write(buf, 0, n);
        }
    }
}
""")

P("json-config-file-not-closed", CONF, pfile(CONF, "loader"), "resource-leak",
  "Close the config file after parsing",
  """The file object returned by open() is never closed, so the descriptor
  stays open until garbage collection, and on Windows the config file stays
  locked against edits.""",
  r"""
import json


def load_config(path):
    f = open(path, encoding="utf-8")
    data = json.load(f)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: top level must be an object")
    return data
""",
  r"""
import json


def load_config(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: top level must be an object")
    return data
""")

P("sqlite-connection-not-closed", BILL, pfile(BILL, "ledger"), "resource-leak",
  "Close the SQLite connection in outstanding_balance",
  """The connection is never closed, so each call leaks a database handle and
  its file lock; note that 'with conn' alone would only commit, not close,
  hence contextlib.closing.""",
  r"""
import sqlite3


def outstanding_balance(db_path, customer_id):
    conn = sqlite3.connect(db_path)
    row = conn.execute(
        "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE customer_id = ?",
        (customer_id,),
    ).fetchone()
    return row[0]
""",
  r"""
import sqlite3
from contextlib import closing


def outstanding_balance(db_path, customer_id):
    with closing(sqlite3.connect(db_path)) as conn:
        row = conn.execute(
            "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE customer_id = ?",
            (customer_id,),
        ).fetchone()
    return row[0]
""")

P("banner-socket-leak", NET, pfile(NET, "probe"), "resource-leak",
  "Close the probe socket on every path",
  """sock.close() is only reached when recv succeeds; a timeout or reset raises
  before it and leaves the socket open, leaking descriptors during port
  scans.""",
  r"""
import socket


def read_banner(host, port, timeout=3.0):
    sock = socket.create_connection((host, port), timeout=timeout)
    data = sock.recv(256)
    sock.close()
    return data.decode("ascii", errors="replace").strip()
""",
  r"""
import socket


def read_banner(host, port, timeout=3.0):
    with socket.create_connection((host, port), timeout=timeout) as sock:
        data = sock.recv(256)
    return data.decode("ascii", errors="replace").strip()
""")

# ---------------------------------------------------------------------------
# boundary-condition (empty input, single element, overflow)
# ---------------------------------------------------------------------------

J("lower-bound-mid-overflow", COLL, jfile(COLL, "Search"), "boundary-condition",
  "Avoid int overflow when computing the midpoint",
  """For arrays with more than 2^30 elements lo + hi exceeds Integer.MAX_VALUE
  and wraps to a negative number, so mid becomes negative and sorted[mid]
  throws ArrayIndexOutOfBoundsException.""",
  r"""
public static int lowerBound(long[] sorted, long target) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (sorted[mid] < target) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}
""",
  r"""
public static int lowerBound(long[] sorted, long target) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sorted[mid] < target) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}
""")

J("bucket-index-abs-min-value", COLL, jfile(COLL, "ShardRouter"), "boundary-condition",
  "Use floorMod to map hash codes to shards",
  """Math.abs(Integer.MIN_VALUE) is still Integer.MIN_VALUE because +2^31 does
  not fit in an int, so a key whose hashCode is MIN_VALUE gets a negative shard
  index and shards.get throws.""",
  r"""
public Shard shardFor(Object key) {
    if (shards.isEmpty()) {
        throw new IllegalStateException("no shards configured");
    }
    int index = Math.abs(key.hashCode()) % shards.size();
    return shards.get(index);
}
""",
  r"""
public Shard shardFor(Object key) {
    if (shards.isEmpty()) {
        throw new IllegalStateException("no shards configured");
    }
    int index = Math.floorMod(key.hashCode(), shards.size());
    return shards.get(index);
}
""")

J("capitalize-empty-string", TEXT, jfile(TEXT, "Case"), "boundary-condition",
  "Handle the empty string in capitalize",
  """charAt(0) assumes at least one character, so capitalize("") throws
  StringIndexOutOfBoundsException instead of returning the empty string.""",
  r"""
public static String capitalize(String s) {
    if (s == null) {
        return null;
    }
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
}
""",
  r"""
public static String capitalize(String s) {
    if (s == null || s.isEmpty()) {
        return s;
    }
    return Character.toUpperCase(s.charAt(0)) + s.substring(1);
}
""")

J("line-total-int-overflow", BILL, jfile(BILL, "LineItems"), "boundary-condition",
  "Multiply line totals in long arithmetic",
  """quantity * unitPriceCents is evaluated in int and only then widened to
  long, so large bulk orders overflow past Integer.MAX_VALUE and produce a
  negative line total.""",
  r"""
public static long lineTotalCents(int quantity, int unitPriceCents) {
    if (quantity < 0 || unitPriceCents < 0) {
        throw new IllegalArgumentException("negative quantity or price");
    }
    long total = quantity * unitPriceCents;
    return total;
}
""",
  r"""
public static long lineTotalCents(int quantity, int unitPriceCents) {
    if (quantity < 0 || unitPriceCents < 0) {
        throw new IllegalArgumentException("negative quantity or price");
    }
    long total = (long) quantity * unitPriceCents;
    return total;
}
""")

P("longest-word-empty-text", TEXT, pfile(TEXT, "words"), "boundary-condition",
  "Return an empty string for text without words",
  """max() raises ValueError on an empty sequence, so longest_word crashes for
  empty or whitespace-only text instead of returning an empty result.""",
  r"""
def longest_word(text):
    words = []
    for token in text.split():
        words.append(token.strip(".,;:!?"))
    return max(words, key=len)
""",
  r"""
def longest_word(text):
    words = []
    for token in text.split():
        words.append(token.strip(".,;:!?"))
    return max(words, key=len, default="")
""")

P("min-max-normalize-constant", MATH, pfile(MATH, "scaling"), "boundary-condition",
  "Handle constant input in min_max_normalize",
  """When all values are equal (including a single-element list) hi - lo is
  zero, so the division raises ZeroDivisionError.""",
  r"""
def min_max_normalize(values):
    values = [float(v) for v in values]
    lo = min(values)
    hi = max(values)
    return [(v - lo) / (hi - lo) for v in values]
""",
  r"""
def min_max_normalize(values):
    values = [float(v) for v in values]
    lo = min(values)
    hi = max(values)
    if hi == lo:
        return [0.0 for _ in values]
    return [(v - lo) / (hi - lo) for v in values]
""")

P("trailing-slash-empty-path", NET, pfile(NET, "urls"), "boundary-condition",
  "Handle bare-host URLs in request_path",
  """urlsplit returns an empty path for a bare host such as
  "http://example.com", and path[-1] raises IndexError on the empty string.""",
  r"""
from urllib.parse import urlsplit


def request_path(url):
    path = urlsplit(url).path
    if path[-1] == "/" and path != "/":
        return path[:-1]
    return path
""",
  r"""
from urllib.parse import urlsplit


def request_path(url):
    path = urlsplit(url).path
    if not path:
        return "/"
    if path[-1] == "/" and path != "/":
        return path[:-1]
    return path
""")

P("next-slot-after-last", SCHED, pfile(SCHED, "slots"), "boundary-condition",
  "Wrap to the first slot after the last one of the day",
  """bisect_right returns len(slots) when now is at or after the last slot, and
  indexing slots with that value raises IndexError instead of wrapping to the
  first slot of the next day.""",
  r"""
import bisect


def next_slot(slots, now):
    # slots: sorted list of minutes since midnight
    i = bisect.bisect_right(slots, now)
    return slots[i]
""",
  r"""
import bisect


def next_slot(slots, now):
    # slots: sorted list of minutes since midnight
    if not slots:
        return None
    i = bisect.bisect_right(slots, now)
    if i == len(slots):
        return slots[0] + 24 * 60
    return slots[i]
""")

# ---------------------------------------------------------------------------
# swapped-arguments
# ---------------------------------------------------------------------------

J("arraycopy-src-dst-swapped", COLL, jfile(COLL, "Buffers"), "swapped-arguments",
  "Fix swapped source and destination in arraycopy",
  """System.arraycopy takes the source array first and the destination third;
  passing them the other way round copies the empty new array over the
  caller's data and returns zeros.""",
  r"""
public static byte[] prefix(byte[] data, int n) {
    int len = Math.min(n, data.length);
    byte[] out = new byte[len];
    System.arraycopy(out, 0, data, 0, len);
    return out;
}
""",
  r"""
public static byte[] prefix(byte[] data, int n) {
    int len = Math.min(n, data.length);
    byte[] out = new byte[len];
    System.arraycopy(data, 0, out, 0, len);
    return out;
}
""")

J("expand-tabs-replace-swapped", TEXT, jfile(TEXT, "Whitespace"), "swapped-arguments",
  "Replace tabs with spaces, not the reverse",
  """String.replace(target, replacement) replaces its first argument; with the
  arguments swapped the method turns runs of spaces into tabs and leaves the
  tabs untouched.""",
  r"""
public static String expandTabs(String line, int tabWidth) {
    if (tabWidth < 1) {
        throw new IllegalArgumentException("tabWidth must be positive");
    }
    String spaces = " ".repeat(tabWidth);
    return line.replace(spaces, "\t");
}
""",
  r"""
public static String expandTabs(String line, int tabWidth) {
    if (tabWidth < 1) {
        throw new IllegalArgumentException("tabWidth must be positive");
    }
    String spaces = " ".repeat(tabWidth);
    return line.replace("\t", spaces);
}
""")

J("us-date-month-day-swapped", SCHED, jfile(SCHED, "DateParsing"), "swapped-arguments",
  "Pass month before day to LocalDate.of",
  """LocalDate.of expects (year, month, dayOfMonth) but the US-format fields are
  passed as (year, day, month), so 03/14/2024 becomes the 3rd of month 14 and
  throws DateTimeException.""",
  r"""
public static LocalDate parseUsDate(String text) {
    String[] p = text.trim().split("/");
    int month = Integer.parseInt(p[0]);
    int day = Integer.parseInt(p[1]);
    int year = Integer.parseInt(p[2]);
    return LocalDate.of(year, day, month);
}
""",
  r"""
public static LocalDate parseUsDate(String text) {
    String[] p = text.trim().split("/");
    int month = Integer.parseInt(p[0]);
    int day = Integer.parseInt(p[1]);
    int year = Integer.parseInt(p[2]);
    return LocalDate.of(year, month, day);
}
""")

P("path-join-swapped", IO, pfile(IO, "exports"), "swapped-arguments",
  "Join export directory before the file name",
  """os.path.join(filename, directory) puts the file name first, so a relative
  directory yields 'report.csv/exports', and an absolute directory discards the
  file name and returns the directory path itself.""",
  r"""
import os


def export_path(directory, name, ext="csv"):
    filename = f"{name}.{ext}"
    return os.path.join(filename, directory)
""",
  r"""
import os


def export_path(directory, name, ext="csv"):
    filename = f"{name}.{ext}"
    return os.path.join(directory, filename)
""")

P("atan2-x-y-swapped", GEOM, pfile(GEOM, "angles"), "swapped-arguments",
  "Call atan2 with (dy, dx)",
  """math.atan2 takes the y component first; calling atan2(dx, dy) measures the
  angle from the y axis, so headings are mirrored about the 45-degree line.""",
  r"""
import math


def heading_degrees(origin, target):
    dx = target[0] - origin[0]
    dy = target[1] - origin[1]
    return math.degrees(math.atan2(dx, dy)) % 360
""",
  r"""
import math


def heading_degrees(origin, target):
    dx = target[0] - origin[0]
    dy = target[1] - origin[1]
    return math.degrees(math.atan2(dy, dx)) % 360
""")

P("re-sub-args-swapped", TEXT, pfile(TEXT, "normalize"), "swapped-arguments",
  "Fix argument order of re.sub in collapse_whitespace",
  """re.sub takes (pattern, replacement, string), but the input text is passed
  as the replacement and a single space as the string, so the function returns
  " " for any input.""",
  r"""
import re


def collapse_whitespace(text):
    return re.sub(r"\s+", text, " ").strip()
""",
  r"""
import re


def collapse_whitespace(text):
    return re.sub(r"\s+", " ", text).strip()
""")

# ---------------------------------------------------------------------------
# integer-division
# ---------------------------------------------------------------------------

J("hit-ratio-integer-division", NET, jfile(NET, "CacheStats"), "integer-division",
  "Compute cache hit ratio in floating point",
  """hits / total divides two longs, which truncates toward zero, so the ratio
  is 0.0 for any hit rate below 100% before it is widened to double.""",
  r"""
public double hitRatio() {
    long hits = hitCount.get();
    long total = hits + missCount.get();
    if (total == 0) {
        return 0.0;
    }
    return hits / total;
}
""",
  r"""
public double hitRatio() {
    long hits = hitCount.get();
    long total = hits + missCount.get();
    if (total == 0) {
        return 0.0;
    }
    return (double) hits / total;
}
""")

J("page-count-rounds-down", NET, jfile(NET, "Paging"), "integer-division",
  "Round the page count up",
  """Integer division truncates, so total / pageSize drops a final partial page;
  with 101 items and 20 per page only 5 pages are reported and the last item
  is unreachable.""",
  r"""
public static int pageCount(int totalItems, int pageSize) {
    if (pageSize <= 0) {
        throw new IllegalArgumentException("pageSize must be positive");
    }
    return totalItems / pageSize;
}
""",
  r"""
public static int pageCount(int totalItems, int pageSize) {
    if (pageSize <= 0) {
        throw new IllegalArgumentException("pageSize must be positive");
    }
    return (totalItems + pageSize - 1) / pageSize;
}
""")

J("fahrenheit-five-ninths-zero", MATH, jfile(MATH, "Units"), "integer-division",
  "Fix Fahrenheit to Celsius conversion returning 0",
  """5 / 9 is evaluated as integer division and equals 0, so every temperature
  converts to 0.0 degrees Celsius.""",
  r"""
public static double[] toCelsius(double[] fahrenheit) {
    double[] out = new double[fahrenheit.length];
    for (int i = 0; i < fahrenheit.length; i++) {
        out[i] = (fahrenheit[i] - 32) * (5 / 9);
    }
    return out;
}
""",
  r"""
public static double[] toCelsius(double[] fahrenheit) {
    double[] out = new double[fahrenheit.length];
    for (int i = 0; i < fahrenheit.length; i++) {
        out[i] = (fahrenheit[i] - 32) * (5.0 / 9.0);
    }
    return out;
}
""")

P("average-latency-floor-division", SCHED, pfile(SCHED, "metrics"), "integer-division",
  "Use true division for mean latency",
  """The floor-division operator // truncates the mean to a whole number of
  milliseconds, so averages like 0.6 ms are reported as 0 and small
  regressions disappear.""",
  r"""
def mean_latency_ms(samples):
    samples = [s for s in samples if s is not None]
    if not samples:
        return 0.0
    return sum(samples) // len(samples)
""",
  r"""
def mean_latency_ms(samples):
    samples = [s for s in samples if s is not None]
    if not samples:
        return 0.0
    return sum(samples) / len(samples)
""")

P("split-bill-loses-remainder", BILL, pfile(BILL, "split"), "integer-division",
  "Distribute the remainder when splitting a bill",
  """Floor division discards total_cents % people, so the shares add up to
  less than the bill (1000 cents among 3 gives 333 each, losing one cent).""",
  r"""
def split_bill(total_cents, people):
    if people <= 0:
        raise ValueError("people must be positive")
    share = total_cents // people
    return [share] * people
""",
  r"""
def split_bill(total_cents, people):
    if people <= 0:
        raise ValueError("people must be positive")
    share, remainder = divmod(total_cents, people)
    return [share + 1 if i < remainder else share for i in range(people)]
""")

P("histogram-bucket-truncates-negative", MATH, pfile(MATH, "histogram"), "integer-division",
  "Floor negative values into the correct bucket",
  """int() truncates toward zero, so values in (-width, 0) land in bucket 0
  together with values in [0, width), and the negative bucket is always
  empty.""",
  r"""
def bucket_counts(values, width):
    counts = {}
    for v in values:
        idx = int(v / width)
        counts[idx] = counts.get(idx, 0) + 1
    return dict(sorted(counts.items()))
""",
  r"""
import math


def bucket_counts(values, width):
    counts = {}
    for v in values:
        idx = math.floor(v / width)
        counts[idx] = counts.get(idx, 0) + 1
    return dict(sorted(counts.items()))
""")

# ---------------------------------------------------------------------------
# wrong-variable (copy-paste)
# ---------------------------------------------------------------------------

J("distance-dy-uses-x", GEOM, jfile(GEOM, "Points"), "wrong-variable",
  "Use y coordinates for dy in distance",
  """The dy line was copied from the dx line and still subtracts x2, so the
  vertical component mixes an x and a y coordinate and distances are wrong
  whenever x2 != y2.""",
  r"""
public static double distance(double x1, double y1, double x2, double y2) {
    double dx = x1 - x2;
    double dy = y1 - x2;
    return Math.sqrt(dx * dx + dy * dy);
}
""",
  r"""
public static double distance(double x1, double y1, double x2, double y2) {
    double dx = x1 - x2;
    double dy = y1 - y2;
    return Math.sqrt(dx * dx + dy * dy);
}
""")

J("version-compare-minor-vs-major", CONF, jfile(CONF, "Version"), "wrong-variable",
  "Compare minor with minor in Version.compareTo",
  """The minor-version branch compares this.minor with other.major, a value
  copied from the line above, so 1.10 vs 1.2 is decided by the wrong field and
  versions sort inconsistently.""",
  r"""
@Override
public int compareTo(Version other) {
    if (major != other.major) {
        return Integer.compare(major, other.major);
    }
    if (minor != other.minor) {
        return Integer.compare(minor, other.major);
    }
    return Integer.compare(patch, other.patch);
}
""",
  r"""
@Override
public int compareTo(Version other) {
    if (major != other.major) {
        return Integer.compare(major, other.major);
    }
    if (minor != other.minor) {
        return Integer.compare(minor, other.minor);
    }
    return Integer.compare(patch, other.patch);
}
""")

J("transpose-uses-wrong-index", MATH, jfile(MATH, "Matrices"), "wrong-variable",
  "Read m[i][j] when transposing",
  """The inner assignment reads m[i][i] instead of m[i][j], so every row of the
  result is filled with diagonal elements and the transpose is wrong (and
  throws for non-square matrices).""",
  r"""
public static double[][] transpose(double[][] m) {
    int rows = m.length;
    int cols = m[0].length;
    double[][] t = new double[cols][rows];
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            t[j][i] = m[i][i];
        }
    }
    return t;
}
""",
  r"""
public static double[][] transpose(double[][] m) {
    int rows = m.length;
    int cols = m[0].length;
    double[][] t = new double[cols][rows];
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            t[j][i] = m[i][j];
        }
    }
    return t;
}
""")

P("merge-config-reads-defaults", CONF, pfile(CONF, "merge"), "wrong-variable",
  "Take override values in merge_settings",
  """The loop iterates over the overrides but stores defaults.get(key, value),
  so any key present in both dicts keeps its default and overrides only ever
  add new keys.""",
  r"""
def merge_settings(defaults, overrides):
    merged = dict(defaults)
    for key, value in overrides.items():
        if value is None:
            continue
        merged[key] = defaults.get(key, value)
    return merged
""",
  r"""
def merge_settings(defaults, overrides):
    merged = dict(defaults)
    for key, value in overrides.items():
        if value is None:
            continue
        merged[key] = value
    return merged
""")

P("bounding-box-max-y-from-x", GEOM, pfile(GEOM, "bbox"), "wrong-variable",
  "Use y coordinates for max_y in bounding_box",
  """max_y is computed from p[0], the x coordinate, because the line was copied
  from max_x, so the box height is wrong for any shape that is not symmetric
  about y = x.""",
  r"""
def bounding_box(points):
    min_x = min(p[0] for p in points)
    min_y = min(p[1] for p in points)
    max_x = max(p[0] for p in points)
    max_y = max(p[0] for p in points)
    return (min_x, min_y, max_x, max_y)
""",
  r"""
def bounding_box(points):
    min_x = min(p[0] for p in points)
    min_y = min(p[1] for p in points)
    max_x = max(p[0] for p in points)
    max_y = max(p[1] for p in points)
    return (min_x, min_y, max_x, max_y)
""")

P("client-timeout-set-from-port", NET, pfile(NET, "client"), "wrong-variable",
  "Store the timeout argument in HttpClient.__init__",
  """self.timeout is assigned from port instead of timeout, so every request
  waits up to 80 or 443 seconds and the caller's timeout is silently
  ignored.""",
  r"""
class HttpClient:
    def __init__(self, host, port=443, timeout=10.0):
        self.host = host
        self.port = port
        self.timeout = port
        self.session = None
""",
  r"""
class HttpClient:
    def __init__(self, host, port=443, timeout=10.0):
        self.host = host
        self.port = port
        self.timeout = timeout
        self.session = None
""")

# ---------------------------------------------------------------------------
# mutable-default-argument (Python)
# ---------------------------------------------------------------------------

P("event-log-default-list", SCHED, pfile(SCHED, "events"), "mutable-default-argument",
  "Do not share the default event log between calls",
  """The default list is created once when the function is defined, so every
  call that omits log appends to the same list and events from unrelated jobs
  accumulate across calls.""",
  r"""
import time


def record_event(name, log=[]):
    log.append((time.time(), name))
    return log
""",
  r"""
import time


def record_event(name, log=None):
    if log is None:
        log = []
    log.append((time.time(), name))
    return log
""")

P("headers-default-dict-mutated", NET, pfile(NET, "headers"), "mutable-default-argument",
  "Copy extra headers instead of mutating the default dict",
  """extra={} is evaluated once and then mutated in place, so the Authorization
  header from the first call leaks into later calls that pass no extra
  headers, sending one user's token for another.""",
  r"""
def build_headers(token, extra={}):
    if not token:
        raise ValueError("token is required")
    extra["Authorization"] = f"Bearer {token}"
    extra.setdefault("Accept", "application/json")
    return extra
""",
  r"""
def build_headers(token, extra=None):
    if not token:
        raise ValueError("token is required")
    headers = dict(extra or {})
    headers["Authorization"] = f"Bearer {token}"
    headers.setdefault("Accept", "application/json")
    return headers
""")

P("cart-items-shared-between-instances", BILL, pfile(BILL, "cart"), "mutable-default-argument",
  "Give each Cart its own item list",
  """The default items list is shared by every Cart created without arguments,
  so adding an item to one customer's cart makes it appear in all other new
  carts.""",
  r"""
class Cart:
    def __init__(self, customer_id, items=[]):
        self.customer_id = customer_id
        self.items = items

    def add(self, sku, qty=1):
        self.items.append((sku, qty))
""",
  r"""
class Cart:
    def __init__(self, customer_id, items=None):
        self.customer_id = customer_id
        self.items = list(items) if items is not None else []

    def add(self, sku, qty=1):
        self.items.append((sku, qty))
""")

P("collect-leaves-accumulator-default", COLL, pfile(COLL, "trees"), "mutable-default-argument",
  "Avoid a shared accumulator in collect_leaves",
  """The acc=[] default is created once, so leaves collected by one top-level
  call are still in the list on the next call and the results grow with every
  invocation.""",
  r"""
def collect_leaves(node, acc=[]):
    if not node.children:
        acc.append(node.value)
    for child in node.children:
        collect_leaves(child, acc)
    return acc
""",
  r"""
def collect_leaves(node, acc=None):
    if acc is None:
        acc = []
    if not node.children:
        acc.append(node.value)
    for child in node.children:
        collect_leaves(child, acc)
    return acc
""")

# ---------------------------------------------------------------------------
# concurrent-modification (modifying a collection while iterating)
# ---------------------------------------------------------------------------

J("evict-expired-removes-during-foreach", NET, jfile(NET, "SessionStore"), "concurrent-modification",
  "Remove expired sessions through the iterator",
  """Removing entries from the HashMap while iterating over its keySet in a
  for-each loop invalidates the iterator, so the next call to next() throws
  ConcurrentModificationException.""",
  r"""
public int evictExpired(long nowMillis) {
    int evicted = 0;
    for (String id : sessions.keySet()) {
        if (sessions.get(id).expiresAt() < nowMillis) {
            sessions.remove(id);
            evicted++;
        }
    }
    return evicted;
}
""",
  r"""
public int evictExpired(long nowMillis) {
    int evicted = 0;
    Iterator<Map.Entry<String, Session>> it = sessions.entrySet().iterator();
    while (it.hasNext()) {
        if (it.next().getValue().expiresAt() < nowMillis) {
            it.remove();
            evicted++;
        }
    }
    return evicted;
}
""")

J("enqueue-follow-ups-while-iterating", SCHED, jfile(SCHED, "TaskPlanner"), "concurrent-modification",
  "Collect follow-up tasks before adding them to the plan",
  """The loop adds follow-up tasks to the same ArrayList it is iterating over,
  which changes the list's modCount and makes the for-each iterator throw
  ConcurrentModificationException.""",
  r"""
public void expandFollowUps(List<Task> plan) {
    for (Task task : plan) {
        if (task.hasFollowUp()) {
            plan.add(task.followUp());
        }
    }
}
""",
  r"""
public void expandFollowUps(List<Task> plan) {
    List<Task> followUps = new ArrayList<>();
    for (Task task : plan) {
        if (task.hasFollowUp()) {
            followUps.add(task.followUp());
        }
    }
    plan.addAll(followUps);
}
""")

J("remove-by-index-skips-next", COLL, jfile(COLL, "Filters"), "concurrent-modification",
  "Do not skip elements when removing by index",
  """After list.remove(i) the following elements shift left by one, but i is
  still incremented, so the element that moved into position i is never
  examined and consecutive negatives survive.""",
  r"""
public static void removeNegatives(List<Integer> values) {
    for (int i = 0; i < values.size(); i++) {
        if (values.get(i) < 0) {
            values.remove(i);
        }
    }
}
""",
  r"""
public static void removeNegatives(List<Integer> values) {
    values.removeIf(v -> v < 0);
}
""")

P("drop-unset-dict-changed-size", CONF, pfile(CONF, "cleanup"), "concurrent-modification",
  "Iterate over a copy of the keys when deleting",
  """Deleting keys from a dict while iterating over it changes its size during
  iteration, which raises RuntimeError: dictionary changed size during
  iteration.""",
  r"""
def drop_unset(settings):
    for key in settings:
        if settings[key] is None:
            del settings[key]
    return settings
""",
  r"""
def drop_unset(settings):
    for key in list(settings):
        if settings[key] is None:
            del settings[key]
    return settings
""")

P("strip-comments-list-remove", TEXT, pfile(TEXT, "comments"), "concurrent-modification",
  "Build a new list instead of removing while iterating",
  """Removing an element from the list being iterated shifts the remaining
  elements left, so the iterator skips the line after each removed comment and
  consecutive comment lines are kept.""",
  r"""
def strip_comments(lines):
    for line in lines:
        if line.lstrip().startswith("#"):
            lines.remove(line)
    return lines
""",
  r"""
def strip_comments(lines):
    return [line for line in lines if not line.lstrip().startswith("#")]
""")

P("discard-from-set-while-iterating", SCHED, pfile(SCHED, "pool"), "concurrent-modification",
  "Iterate over a snapshot when reaping finished jobs",
  """Discarding elements from self.pending while looping over the same set
  changes its size mid-iteration and raises RuntimeError: Set changed size
  during iteration.""",
  r"""
def reap_finished(self):
    finished = []
    for job in self.pending:
        if job.done():
            self.pending.discard(job)
            finished.append(job)
    return finished
""",
  r"""
def reap_finished(self):
    finished = [job for job in self.pending if job.done()]
    self.pending.difference_update(finished)
    return finished
""")

# ---------------------------------------------------------------------------
# wrong-equality (== vs equals, `is` vs ==)
# ---------------------------------------------------------------------------

J("command-string-reference-equality", NET, jfile(NET, "CommandDispatcher"), "wrong-equality",
  "Compare command names with equals",
  """== compares String references, and a command read from the socket is a
  new String object, so it is never identical to the literal "QUIT" and the
  connection is never closed.""",
  r"""
public boolean handle(String line) {
    String command = line.trim().toUpperCase(Locale.ROOT);
    if (command == "QUIT") {
        close();
        return false;
    }
    dispatch(command);
    return true;
}
""",
  r"""
public boolean handle(String line) {
    String command = line.trim().toUpperCase(Locale.ROOT);
    if ("QUIT".equals(command)) {
        close();
        return false;
    }
    dispatch(command);
    return true;
}
""")

J("boxed-integer-reference-equality", COLL, jfile(COLL, "Inventory"), "wrong-equality",
  "Compare boxed stock counts by value",
  """The map values are Integer objects, and == compares references; only
  values between -128 and 127 are cached, so equal counts above 127 compare
  as different.""",
  r"""
public static boolean sameStock(Map<String, Integer> a, Map<String, Integer> b, String sku) {
    Integer left = a.get(sku);
    Integer right = b.get(sku);
    return left == right;
}
""",
  r"""
public static boolean sameStock(Map<String, Integer> a, Map<String, Integer> b, String sku) {
    Integer left = a.get(sku);
    Integer right = b.get(sku);
    return Objects.equals(left, right);
}
""")

J("byte-array-equals-reference", IO, jfile(IO, "Checksums"), "wrong-equality",
  "Compare digest contents instead of array identity",
  """Arrays do not override equals, so expected.equals(actual) compares
  references and is false for two distinct arrays with the same bytes; every
  download fails verification.""",
  r"""
public static boolean verify(Path file, byte[] expected) throws IOException, NoSuchAlgorithmException {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    byte[] actual = md.digest(Files.readAllBytes(file));
    return expected.equals(actual);
}
""",
  r"""
public static boolean verify(Path file, byte[] expected) throws IOException, NoSuchAlgorithmException {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    byte[] actual = md.digest(Files.readAllBytes(file));
    return MessageDigest.isEqual(expected, actual);
}
""")

P("role-compared-with-is", CONF, pfile(CONF, "roles"), "wrong-equality",
  "Compare role names with == instead of is",
  """'is' tests object identity, and a role string read from a config file or
  request is a different object from the literal "admin", so the check fails
  for real admins even though the strings are equal.""",
  r"""
def is_admin(user):
    if not user:
        return False
    role = user.get("role", "").strip().lower()
    return role is "admin"
""",
  r"""
def is_admin(user):
    if not user:
        return False
    role = user.get("role", "").strip().lower()
    return role == "admin"
""")

P("same-length-int-identity", COLL, pfile(COLL, "compare"), "wrong-equality",
  "Use == to compare sequence lengths",
  """CPython only caches small integers (-5 to 256), so len(a) is len(b) is
  False for equal lengths above 256 and long equal-length batches are
  rejected.""",
  r"""
def check_same_length(a, b):
    a, b = list(a), list(b)
    if len(a) is not len(b):
        raise ValueError(f"length mismatch: {len(a)} != {len(b)}")
    return list(zip(a, b))
""",
  r"""
def check_same_length(a, b):
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"length mismatch: {len(a)} != {len(b)}")
    return list(zip(a, b))
""")

P("is-not-empty-list-literal", TEXT, pfile(TEXT, "search"), "wrong-equality",
  "Test for matches by truthiness, not identity with []",
  """'matches is not []' compares identity with a freshly created list, which
  is always true, so the function reports a hit even when nothing matched.""",
  r"""
def contains_any(text, needles):
    if not text:
        return False
    text = text.lower()
    matches = [n for n in needles if n.lower() in text]
    return matches is not []
""",
  r"""
def contains_any(text, needles):
    if not text:
        return False
    text = text.lower()
    matches = [n for n in needles if n.lower() in text]
    return len(matches) > 0
""")

# ---------------------------------------------------------------------------
# missing-return-or-break
# ---------------------------------------------------------------------------

J("http-method-switch-fallthrough", NET, jfile(NET, "RateCosts"), "missing-return-or-break",
  "Add missing break statements in cost switch",
  """The switch cases have no break, so a GET falls through into the POST and
  DELETE cases and every request is charged the cost of the last case.""",
  r"""
public static int costOf(String method) {
    int cost;
    switch (method) {
        case "GET":
            cost = 1;
        case "POST":
            cost = 5;
        case "DELETE":
            cost = 10;
        default:
            cost = 2;
    }
    return cost;
}
""",
  r"""
public static int costOf(String method) {
    int cost;
    switch (method) {
        case "GET":
            cost = 1;
            break;
        case "POST":
            cost = 5;
            break;
        case "DELETE":
            cost = 10;
            break;
        default:
            cost = 2;
            break;
    }
    return cost;
}
""")

J("priority-weight-enum-fallthrough", SCHED, jfile(SCHED, "Weights"), "missing-return-or-break",
  "Stop HIGH priority from falling through to NORMAL",
  """The HIGH case lacks a break, so execution continues into the NORMAL case
  and high-priority jobs get the normal weight, making them indistinguishable
  in the queue.""",
  r"""
public static int weight(Priority p) {
    int w = 0;
    switch (p) {
        case CRITICAL:
            w = 100;
            break;
        case HIGH:
            w = 50;
        case NORMAL:
            w = 10;
            break;
        case LOW:
            w = 1;
            break;
    }
    return w;
}
""",
  r"""
public static int weight(Priority p) {
    int w = 0;
    switch (p) {
        case CRITICAL:
            w = 100;
            break;
        case HIGH:
            w = 50;
            break;
        case NORMAL:
            w = 10;
            break;
        case LOW:
            w = 1;
            break;
    }
    return w;
}
""")

J("bst-find-ignores-recursive-result", COLL, jfile(COLL, "TreeMapLite"), "missing-return-or-break",
  "Return the result of the recursive lookup",
  """The recursive calls for the left and right subtrees discard their result
  and fall through to return null, so only keys stored at the root are ever
  found.""",
  r"""
private V find(Node<K, V> node, K key) {
    if (node == null) {
        return null;
    }
    int c = key.compareTo(node.key);
    if (c < 0) {
        find(node.left, key);
    } else if (c > 0) {
        find(node.right, key);
    } else {
        return node.value;
    }
    return null;
}
""",
  r"""
private V find(Node<K, V> node, K key) {
    if (node == null) {
        return null;
    }
    int c = key.compareTo(node.key);
    if (c < 0) {
        return find(node.left, key);
    } else if (c > 0) {
        return find(node.right, key);
    } else {
        return node.value;
    }
}
""")

P("normalize-path-missing-return", IO, pfile(IO, "paths"), "missing-return-or-break",
  "Return the normalised path",
  """The final branch builds the normalised string but never returns it, so
  the function falls off the end and returns None for every non-root path.""",
  r"""
def normalize_dir(path):
    if not path or path == "/":
        return "/"
    path = path.replace("\\", "/")
    "/" + path.strip("/") + "/"
""",
  r"""
def normalize_dir(path):
    if not path or path == "/":
        return "/"
    path = path.replace("\\", "/")
    return "/" + path.strip("/") + "/"
""")

P("gcd-missing-return-in-recursion", MATH, pfile(MATH, "numbers"), "missing-return-or-break",
  "Return the recursive gcd result",
  """The recursive call's value is computed but not returned, so gcd returns
  None whenever b is non-zero on the first call.""",
  r"""
def gcd(a, b):
    a, b = abs(a), abs(b)
    if b == 0:
        return a
    gcd(b, a % b)
""",
  r"""
def gcd(a, b):
    a, b = abs(a), abs(b)
    if b == 0:
        return a
    return gcd(b, a % b)
""")

P("retry-loop-missing-break", NET, pfile(NET, "retry"), "missing-return-or-break",
  "Stop retrying after a successful send",
  """Nothing leaves the loop after a successful send, so the request is
  repeated for every remaining attempt and a non-idempotent POST is delivered
  several times.""",
  r"""
import time


def send_with_retry(send, payload, attempts=3, delay=0.5):
    response = None
    for attempt in range(attempts):
        try:
            response = send(payload)
        except ConnectionError:
            time.sleep(delay * (2 ** attempt))
            continue
    return response
""",
  r"""
import time


def send_with_retry(send, payload, attempts=3, delay=0.5):
    response = None
    for attempt in range(attempts):
        try:
            response = send(payload)
        except ConnectionError:
            time.sleep(delay * (2 ** attempt))
            continue
        break
    return response
""")

# ---------------------------------------------------------------------------
# exception-handling (swallowed, too broad, lost interrupt)
# ---------------------------------------------------------------------------

J("swallowed-ioexception-empty-config", CONF, jfile(CONF, "PropertiesLoader"), "exception-handling",
  "Propagate I/O errors when loading properties",
  """The IOException is caught and ignored, so an unreadable or missing file
  silently yields empty properties and the application starts with defaults
  instead of failing with the real cause.""",
  r"""
public static Properties load(Path path) {
    Properties props = new Properties();
    try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
        props.load(r);
    } catch (IOException e) {
        // ignore
    }
    return props;
}
""",
  r"""
public static Properties load(Path path) {
    Properties props = new Properties();
    try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
        props.load(r);
    } catch (IOException e) {
        throw new UncheckedIOException("cannot read config " + path, e);
    }
    return props;
}
""")

J("catch-exception-hides-npe", NET, jfile(NET, "Ports"), "exception-handling",
  "Catch only NumberFormatException when parsing ports",
  """catch (Exception) also catches the NullPointerException and other
  programming errors thrown inside the try, so bugs are silently turned into
  the default port; only the parse failure should be handled.""",
  r"""
public static int portOrDefault(Map<String, String> env, int fallback) {
    try {
        String raw = env.get("SERVICE_PORT");
        return Integer.parseInt(raw.trim());
    } catch (Exception e) {
        return fallback;
    }
}
""",
  r"""
public static int portOrDefault(Map<String, String> env, int fallback) {
    String raw = env.get("SERVICE_PORT");
    if (raw == null) {
        return fallback;
    }
    try {
        return Integer.parseInt(raw.trim());
    } catch (NumberFormatException e) {
        return fallback;
    }
}
""")

J("interrupted-exception-swallowed", SCHED, jfile(SCHED, "Backoff"), "exception-handling",
  "Restore the interrupt flag when sleep is interrupted",
  """Catching InterruptedException clears the thread's interrupt status, and the
  empty handler drops it, so a shutdown request is lost and the worker keeps
  retrying instead of stopping.""",
  r"""
public static void pause(long millis) {
    try {
        Thread.sleep(millis);
    } catch (InterruptedException e) {
    }
}
""",
  r"""
public static void pause(long millis) {
    try {
        Thread.sleep(millis);
    } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
    }
}
""")

J("return-in-finally-swallows-exception", IO, jfile(IO, "Snapshotter"), "exception-handling",
  "Remove return from finally block",
  """A return inside finally discards any exception thrown in the try block,
  so a failed write is reported as success and callers delete the original
  data.""",
  r"""
public boolean writeSnapshot(Path target, byte[] data) throws IOException {
    boolean ok = false;
    try {
        Files.write(target, data, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        ok = true;
    } finally {
        lastAttempt = Instant.now();
        return ok;
    }
}
""",
  r"""
public boolean writeSnapshot(Path target, byte[] data) throws IOException {
    try {
        Files.write(target, data, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        return true;
    } finally {
        lastAttempt = Instant.now();
    }
}
""")

P("bare-except-catches-keyboard-interrupt", NET, pfile(NET, "poller"), "exception-handling",
  "Catch only network errors in the poll loop",
  """A bare except also catches KeyboardInterrupt and SystemExit, so Ctrl-C and
  sys.exit() inside the loop are swallowed and the poller cannot be
  stopped.""",
  r"""
import time
import urllib.request


def poll(url, interval, handle):
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as resp:
                handle(resp.read())
        except:
            pass
        time.sleep(interval)
""",
  r"""
import time
import urllib.request


def poll(url, interval, handle):
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as resp:
                handle(resp.read())
        except OSError:
            pass
        time.sleep(interval)
""")

P("parse-amount-swallows-error", BILL, pfile(BILL, "amounts"), "exception-handling",
  "Raise a clear error for malformed amounts",
  """The broad except returns None for any bad input, so the error surfaces
  later as a confusing TypeError when the None is added to a total, far from
  the malformed value.""",
  r"""
from decimal import Decimal


def parse_amount(text):
    try:
        return Decimal(text.replace(",", "").strip())
    except Exception:
        return None
""",
  r"""
from decimal import Decimal, InvalidOperation


def parse_amount(text):
    try:
        return Decimal(text.replace(",", "").strip())
    except InvalidOperation as exc:
        raise ValueError(f"invalid amount: {text!r}") from exc
""")

P("unbound-local-after-except", CONF, pfile(CONF, "timeouts"), "exception-handling",
  "Return the default when the timeout is malformed",
  """When int() fails the except block only logs, and execution continues to
  use value, which was never assigned, raising UnboundLocalError instead of
  falling back to the default.""",
  r"""
import logging

log = logging.getLogger(__name__)


def timeout_ms(settings, default=5000):
    raw = settings.get("timeout", default)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        log.warning("invalid timeout %r", raw)
    return value * 1000 if value < 100 else value
""",
  r"""
import logging

log = logging.getLogger(__name__)


def timeout_ms(settings, default=5000):
    raw = settings.get("timeout", default)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        log.warning("invalid timeout %r, using %d", raw, default)
        return default
    return value * 1000 if value < 100 else value
""")

# ---------------------------------------------------------------------------
# recursion-base-case
# ---------------------------------------------------------------------------

J("factorial-base-case-zero", MATH, jfile(MATH, "Combinatorics"), "recursion-base-case",
  "Stop factorial recursion at 0",
  """The base case only matches n == 1, so factorial(0) recurses to -1, -2, ...
  and never terminates until StackOverflowError, although 0! is defined as
  1.""",
  r"""
public static BigInteger factorial(int n) {
    if (n < 0) {
        throw new IllegalArgumentException("n must be >= 0");
    }
    if (n == 1) {
        return BigInteger.ONE;
    }
    return BigInteger.valueOf(n).multiply(factorial(n - 1));
}
""",
  r"""
public static BigInteger factorial(int n) {
    if (n < 0) {
        throw new IllegalArgumentException("n must be >= 0");
    }
    if (n <= 1) {
        return BigInteger.ONE;
    }
    return BigInteger.valueOf(n).multiply(factorial(n - 1));
}
""")

J("tree-height-null-child", COLL, jfile(COLL, "Trees"), "recursion-base-case",
  "Use a null node as the base case for height",
  """The base case only recognises leaves, so a node with exactly one child
  recurses into its null child and dereferences it, throwing
  NullPointerException.""",
  r"""
public static int height(TreeNode node) {
    if (node.left == null && node.right == null) {
        return 1;
    }
    return 1 + Math.max(height(node.left), height(node.right));
}
""",
  r"""
public static int height(TreeNode node) {
    if (node == null) {
        return 0;
    }
    return 1 + Math.max(height(node.left), height(node.right));
}
""")

J("grid-paths-base-case-too-narrow", MATH, jfile(MATH, "GridPaths"), "recursion-base-case",
  "Terminate path counting on the first row or column",
  """The recursion only stops when both rows and cols are 1; once one of them
  reaches 1 the other branch keeps decrementing it to 0 and below, so the
  recursion never terminates and overflows the stack.""",
  r"""
public static long countPaths(int rows, int cols) {
    if (rows == 1 && cols == 1) {
        return 1;
    }
    return countPaths(rows - 1, cols) + countPaths(rows, cols - 1);
}
""",
  r"""
public static long countPaths(int rows, int cols) {
    if (rows == 1 || cols == 1) {
        return 1;
    }
    return countPaths(rows - 1, cols) + countPaths(rows, cols - 1);
}
""")

P("recursive-bsearch-base-case", COLL, pfile(COLL, "bsearch"), "recursion-base-case",
  "Fix termination test in recursive binary search",
  """hi is inclusive, so when lo == hi one candidate is still left, but the base
  case returns -1 without checking it; the last remaining element (for example
  the only element of a one-item list) is never found.""",
  r"""
def bsearch(xs, target, lo=0, hi=None):
    if hi is None:
        hi = len(xs) - 1
    if lo == hi:
        return -1
    mid = (lo + hi) // 2
    if xs[mid] == target:
        return mid
    if xs[mid] < target:
        return bsearch(xs, target, mid + 1, hi)
    return bsearch(xs, target, lo, mid - 1)
""",
  r"""
def bsearch(xs, target, lo=0, hi=None):
    if hi is None:
        hi = len(xs) - 1
    if lo > hi:
        return -1
    mid = (lo + hi) // 2
    if xs[mid] == target:
        return mid
    if xs[mid] < target:
        return bsearch(xs, target, mid + 1, hi)
    return bsearch(xs, target, lo, mid - 1)
""")

P("chunk-text-trailing-empty", TEXT, pfile(TEXT, "chunking"), "recursion-base-case",
  "Avoid a trailing empty chunk in chunk_text",
  """The base case uses len(text) < size, so text whose length is a multiple of
  size recurses once more on the empty remainder and the result ends with an
  empty string chunk.""",
  r"""
def chunk_text(text, size):
    if size <= 0:
        raise ValueError("size must be positive")
    if len(text) < size:
        return [text]
    return [text[:size]] + chunk_text(text[size:], size)
""",
  r"""
def chunk_text(text, size):
    if size <= 0:
        raise ValueError("size must be positive")
    if len(text) <= size:
        return [text] if text else []
    return [text[:size]] + chunk_text(text[size:], size)
""")

P("nesting-depth-empty-dict", CONF, pfile(CONF, "inspect"), "recursion-base-case",
  "Handle empty mappings in nesting_depth",
  """An empty dict reaches max() with no values, which raises ValueError; the
  recursion lacks a base case for a mapping without children.""",
  r"""
def nesting_depth(obj):
    if isinstance(obj, list):
        return max((nesting_depth(v) for v in obj), default=0)
    if not isinstance(obj, dict):
        return 0
    return 1 + max(nesting_depth(v) for v in obj.values())
""",
  r"""
def nesting_depth(obj):
    if isinstance(obj, list):
        return max((nesting_depth(v) for v in obj), default=0)
    if not isinstance(obj, dict):
        return 0
    if not obj:
        return 1
    return 1 + max(nesting_depth(v) for v in obj.values())
""")

# ---------------------------------------------------------------------------
# accumulator-init
# ---------------------------------------------------------------------------

J("max-starts-at-zero", MATH, jfile(MATH, "Extremes"), "accumulator-init",
  "Initialise the maximum from the first element",
  """The running maximum starts at 0, so for an array whose values are all
  negative nothing is ever larger and the method returns 0, a value that is not
  in the array.""",
  r"""
public static int largest(int[] values) {
    if (values.length == 0) {
        throw new NoSuchElementException("empty array");
    }
    int max = 0;
    for (int v : values) {
        if (v > max) {
            max = v;
        }
    }
    return max;
}
""",
  r"""
public static int largest(int[] values) {
    if (values.length == 0) {
        throw new NoSuchElementException("empty array");
    }
    int max = values[0];
    for (int v : values) {
        if (v > max) {
            max = v;
        }
    }
    return max;
}
""")

J("min-x-starts-at-double-min-value", GEOM, jfile(GEOM, "Bounds"), "accumulator-init",
  "Start the minimum at positive infinity",
  """Double.MIN_VALUE is the smallest positive double, not the most negative
  one, so any polygon lying entirely at x > 0 reports a minimum x of about
  4.9e-324.""",
  r"""
public static double minX(List<double[]> vertices) {
    double min = Double.MIN_VALUE;
    for (double[] v : vertices) {
        if (v[0] < min) {
            min = v[0];
        }
    }
    return min;
}
""",
  r"""
public static double minX(List<double[]> vertices) {
    double min = Double.POSITIVE_INFINITY;
    for (double[] v : vertices) {
        if (v[0] < min) {
            min = v[0];
        }
    }
    return min;
}
""")

J("compound-factor-starts-at-zero", BILL, jfile(BILL, "Interest"), "accumulator-init",
  "Start the compound factor at 1",
  """A product accumulator must start at the multiplicative identity; starting
  at 0.0 makes every multiplication yield 0, so all compounded balances come
  out as zero.""",
  r"""
public static double compoundFactor(double[] monthlyRates) {
    double factor = 0.0;
    for (double r : monthlyRates) {
        factor *= 1.0 + r;
    }
    return factor;
}
""",
  r"""
public static double compoundFactor(double[] monthlyRates) {
    double factor = 1.0;
    for (double r : monthlyRates) {
        factor *= 1.0 + r;
    }
    return factor;
}
""")

P("warmest-station-negative-temps", MATH, pfile(MATH, "weather"), "accumulator-init",
  "Seed the best temperature with negative infinity",
  """best_temp starts at 0, so when every reading is below freezing no station
  beats it and the function returns None instead of the warmest station.""",
  r"""
def warmest_station(readings):
    best_name, best_temp = None, 0
    for name, temp in readings.items():
        if temp > best_temp:
            best_name, best_temp = name, temp
    return best_name
""",
  r"""
def warmest_station(readings):
    best_name, best_temp = None, float("-inf")
    for name, temp in readings.items():
        if temp > best_temp:
            best_name, best_temp = name, temp
    return best_name
""")

P("fastest-route-best-zero", NET, pfile(NET, "routing"), "accumulator-init",
  "Start the best latency at infinity",
  """The search for the minimum starts with best = 0, and no route has a
  negative latency, so the comparison never succeeds and no route is ever
  selected.""",
  r"""
def fastest_route(routes):
    best_route = None
    best = 0
    for route in routes:
        if route.latency_ms < best:
            best_route, best = route, route.latency_ms
    return best_route
""",
  r"""
def fastest_route(routes):
    best_route = None
    best = float("inf")
    for route in routes:
        if route.latency_ms < best:
            best_route, best = route, route.latency_ms
    return best_route
""")

P("running-balance-ignores-opening", BILL, pfile(BILL, "statement"), "accumulator-init",
  "Start the running balance from the opening balance",
  """The accumulator starts at 0 instead of the opening balance that is passed
  in, so every line of the statement is off by the carried-over amount.""",
  r"""
def running_balances(opening, transactions):
    balance = 0
    out = []
    for tx in transactions:
        balance += tx.amount
        out.append((tx.date, balance))
    return out
""",
  r"""
def running_balances(opening, transactions):
    balance = opening
    out = []
    for tx in transactions:
        balance += tx.amount
        out.append((tx.date, balance))
    return out
""")

# ---------------------------------------------------------------------------
# string-encoding (charset, bytes vs str, formatting)
# ---------------------------------------------------------------------------

J("response-body-default-charset", NET, jfile(NET, "Responses"), "string-encoding",
  "Decode response bodies as UTF-8",
  """new String(byte[]) uses the platform default charset, so on hosts whose
  default is not UTF-8 the UTF-8 response body is decoded into mojibake.""",
  r"""
public static String bodyAsString(byte[] body) {
    if (body == null || body.length == 0) {
        return "";
    }
    return new String(body);
}
""",
  r"""
public static String bodyAsString(byte[] body) {
    if (body == null || body.length == 0) {
        return "";
    }
    return new String(body, StandardCharsets.UTF_8);
}
""")

J("hmac-getbytes-platform-charset", BILL, jfile(BILL, "WebhookSigner"), "string-encoding",
  "Sign webhook payloads as UTF-8 bytes",
  """String.getBytes() without a charset encodes with the platform default, so
  payloads containing non-ASCII characters produce different bytes, and thus
  a different HMAC, than the receiver computes over UTF-8.""",
  r"""
public static String sign(String payload, byte[] secret) throws GeneralSecurityException {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret, "HmacSHA256"));
    byte[] sig = mac.doFinal(payload.getBytes());
    return Base64.getEncoder().encodeToString(sig);
}
""",
  r"""
public static String sign(String payload, byte[] secret) throws GeneralSecurityException {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret, "HmacSHA256"));
    byte[] sig = mac.doFinal(payload.getBytes(StandardCharsets.UTF_8));
    return Base64.getEncoder().encodeToString(sig);
}
""")

J("content-length-counts-chars", NET, jfile(NET, "RequestWriter"), "string-encoding",
  "Send Content-Length in bytes, not characters",
  """String.length() counts UTF-16 code units, but Content-Length must be the
  number of encoded bytes; bodies with non-ASCII text are truncated by the
  server because the header understates their size.""",
  r"""
public static void writeRequest(OutputStream out, String path, String json) throws IOException {
    String head = "POST " + path + " HTTP/1.1\r\n"
            + "Content-Type: application/json; charset=utf-8\r\n"
            + "Content-Length: " + json.length() + "\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(json.getBytes(StandardCharsets.UTF_8));
    out.flush();
}
""",
  r"""
public static void writeRequest(OutputStream out, String path, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    String head = "POST " + path + " HTTP/1.1\r\n"
            + "Content-Type: application/json; charset=utf-8\r\n"
            + "Content-Length: " + body.length + "\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
}
""")

J("csv-amount-locale-decimal-comma", BILL, jfile(BILL, "CsvExport"), "string-encoding",
  "Format CSV amounts with Locale.ROOT",
  """String.format without a locale uses the default locale, so on a German or
  French system the amount is written with a decimal comma, which splits the
  field in the comma-separated export.""",
  r"""
public static String toCsvLine(String invoiceId, double amount, String currency) {
    if (invoiceId.indexOf(',') >= 0) {
        throw new IllegalArgumentException("invoice id contains a comma: " + invoiceId);
    }
    return String.format("%s,%.2f,%s", invoiceId, amount, currency);
}
""",
  r"""
public static String toCsvLine(String invoiceId, double amount, String currency) {
    if (invoiceId.indexOf(',') >= 0) {
        throw new IllegalArgumentException("invoice id contains a comma: " + invoiceId);
    }
    return String.format(Locale.ROOT, "%s,%.2f,%s", invoiceId, amount, currency);
}
""")

P("open-without-encoding", IO, pfile(IO, "readers"), "string-encoding",
  "Read template files as UTF-8",
  """open() in text mode without an encoding uses the locale's preferred
  encoding, so on Windows (cp1252) UTF-8 templates are decoded into mojibake
  or raise UnicodeDecodeError.""",
  r"""
import string


def render_template(path, **values):
    with open(path) as f:
        template = string.Template(f.read())
    return template.safe_substitute(values)
""",
  r"""
import string


def render_template(path, **values):
    with open(path, encoding="utf-8") as f:
        template = string.Template(f.read())
    return template.safe_substitute(values)
""")

P("recv-bytes-compared-with-str", NET, pfile(NET, "smtp"), "string-encoding",
  "Decode the server reply before comparing to str",
  """sock.recv returns bytes, and startswith with a str argument raises
  TypeError in Python 3, so every handshake fails; the reply must be decoded
  (or compared with a bytes prefix).""",
  r"""
def expect_greeting(sock):
    reply = sock.recv(1024)
    if not reply.startswith("220"):
        raise ConnectionError(f"unexpected greeting: {reply!r}")
    return reply
""",
  r"""
def expect_greeting(sock):
    reply = sock.recv(1024).decode("ascii", errors="replace")
    if not reply.startswith("220"):
        raise ConnectionError(f"unexpected greeting: {reply!r}")
    return reply
""")

P("percent-format-tuple-argument", CONF, pfile(CONF, "validate"), "string-encoding",
  "Format missing keys safely in the warning message",
  """When the right operand of % is a tuple its items are taken as separate
  format arguments, so a tuple with two or more missing keys raises
  TypeError: not all arguments converted during string formatting.""",
  r"""
import logging

log = logging.getLogger(__name__)


def warn_missing(required, settings):
    missing = tuple(k for k in required if k not in settings)
    if missing:
        log.warning("missing settings: %s" % missing)
    return missing
""",
  r"""
import logging

log = logging.getLogger(__name__)


def warn_missing(required, settings):
    missing = tuple(k for k in required if k not in settings)
    if missing:
        log.warning("missing settings: %s", ", ".join(missing))
    return missing
""")

P("truncate-counts-chars-not-bytes", TEXT, pfile(TEXT, "limits"), "string-encoding",
  "Truncate on UTF-8 byte length",
  """The column limit is in bytes, but len(text) counts code points, so text
  with multi-byte characters passes the check and the database rejects it as
  too long.""",
  r"""
def truncate_for_column(text, max_bytes=255):
    if text is None:
        return None
    if len(text) <= max_bytes:
        return text
    return text[:max_bytes]
""",
  r"""
def truncate_for_column(text, max_bytes=255):
    if text is None:
        return None
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")
""")

# ---------------------------------------------------------------------------
# concurrency (lazy init, check-then-act, lost updates)
# ---------------------------------------------------------------------------

J("singleton-unsynchronized-lazy-init", CONF, jfile(CONF, "AppConfig"), "concurrency",
  "Make AppConfig lazy initialisation thread-safe",
  """Two threads can both see instance == null and each construct an AppConfig,
  and without synchronization one thread may even see a partially constructed
  object; the holder idiom gives safe one-time initialisation.""",
  r"""
private static AppConfig instance;

public static AppConfig getInstance() {
    if (instance == null) {
        instance = new AppConfig(loadFromDisk());
    }
    return instance;
}
""",
  r"""
private static final class Holder {
    static final AppConfig INSTANCE = new AppConfig(loadFromDisk());
}

public static AppConfig getInstance() {
    return Holder.INSTANCE;
}
""")

J("double-checked-locking-not-volatile", NET, jfile(NET, "Client"), "concurrency",
  "Declare the lazily created pool volatile",
  """Double-checked locking without volatile lets the unsynchronised first read
  observe the pool reference before the constructor's writes are visible, so
  another thread can use a half-initialised ConnectionPool.""",
  r"""
private ConnectionPool pool;

public ConnectionPool pool() {
    if (pool == null) {
        synchronized (this) {
            if (pool == null) {
                pool = new ConnectionPool(config);
            }
        }
    }
    return pool;
}
""",
  r"""
private volatile ConnectionPool pool;

public ConnectionPool pool() {
    ConnectionPool p = pool;
    if (p == null) {
        synchronized (this) {
            p = pool;
            if (p == null) {
                p = new ConnectionPool(config);
                pool = p;
            }
        }
    }
    return p;
}
""")

J("concurrent-map-check-then-act", COLL, jfile(COLL, "LimiterRegistry"), "concurrency",
  "Create per-client limiters atomically",
  """containsKey followed by put is a check-then-act race even on a
  ConcurrentHashMap: two threads can both miss and install different
  limiters, so some requests are counted against a limiter that is then
  replaced.""",
  r"""
public RateLimiter limiterFor(String clientId) {
    if (!limiters.containsKey(clientId)) {
        limiters.put(clientId, new RateLimiter(permitsPerSecond));
    }
    return limiters.get(clientId);
}
""",
  r"""
public RateLimiter limiterFor(String clientId) {
    return limiters.computeIfAbsent(clientId, id -> new RateLimiter(permitsPerSecond));
}
""")

J("volatile-counter-lost-updates", NET, jfile(NET, "ServerMetrics"), "concurrency",
  "Use atomic counters for request metrics",
  """volatile only guarantees visibility; ++ and += are separate read and write
  steps, so concurrent request threads overwrite each other's increments and
  the counters under-report traffic.""",
  r"""
private volatile long requests;
private volatile long bytesServed;

public void recordRequest(long bytes) {
    requests++;
    bytesServed += bytes;
}
""",
  r"""
private final LongAdder requests = new LongAdder();
private final LongAdder bytesServed = new LongAdder();

public void recordRequest(long bytes) {
    requests.increment();
    bytesServed.add(bytes);
}
""")

P("makedirs-check-then-create", IO, pfile(IO, "cache_dir"), "concurrency",
  "Create the cache directory without a race",
  """Between the exists() check and makedirs() another worker process can
  create the directory, and makedirs then raises FileExistsError; the check and
  the creation are not atomic.""",
  r"""
import os


def ensure_cache_dir(root, name):
    path = os.path.join(root, name)
    if not os.path.exists(path):
        os.makedirs(path)
    return path
""",
  r"""
import os


def ensure_cache_dir(root, name):
    path = os.path.join(root, name)
    os.makedirs(path, exist_ok=True)
    return path
""")

P("worker-counter-without-lock", SCHED, pfile(SCHED, "progress"), "concurrency",
  "Guard the shared progress counter with a lock",
  """self.completed += 1 is a read-modify-write that is not atomic across
  threads, so concurrent workers can lose increments and the progress never
  reaches the total.""",
  r"""
import threading


class Progress:
    def __init__(self, total):
        self.total = total
        self.completed = 0

    def task_done(self):
        self.completed += 1
        return self.completed == self.total
""",
  r"""
import threading


class Progress:
    def __init__(self, total):
        self.total = total
        self.completed = 0
        self._lock = threading.Lock()

    def task_done(self):
        with self._lock:
            self.completed += 1
            return self.completed == self.total
""")

P("lazy-global-client-race", NET, pfile(NET, "shared_client"), "concurrency",
  "Initialise the shared client under a lock",
  """Several threads can observe _client is None at the same time and each
  create a client, leaking connection pools and breaking the single-instance
  assumption.""",
  r"""
_client = None


def get_client(factory):
    global _client
    if _client is None:
        _client = factory()
    return _client
""",
  r"""
import threading

_client = None
_client_lock = threading.Lock()


def get_client(factory):
    global _client
    if _client is None:
        with _client_lock:
            if _client is None:
                _client = factory()
    return _client
""")

# ---------------------------------------------------------------------------
# hashcode-equals (contract violations)
# ---------------------------------------------------------------------------

J("equals-without-hashcode", GEOM, jfile(GEOM, "GridPoint"), "hashcode-equals",
  "Override hashCode together with equals in GridPoint",
  """equals is overridden but hashCode is inherited from Object, so two equal
  points usually have different hash codes and HashSet or HashMap treat them
  as different keys.""",
  r"""
public final class GridPoint {
    private final int x;
    private final int y;

    public GridPoint(int x, int y) {
        this.x = x;
        this.y = y;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof GridPoint)) {
            return false;
        }
        GridPoint p = (GridPoint) o;
        return x == p.x && y == p.y;
    }
}
""",
  r"""
public final class GridPoint {
    private final int x;
    private final int y;

    public GridPoint(int x, int y) {
        this.x = x;
        this.y = y;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof GridPoint)) {
            return false;
        }
        GridPoint p = (GridPoint) o;
        return x == p.x && y == p.y;
    }

    @Override
    public int hashCode() {
        return 31 * x + y;
    }
}
""")

J("hashcode-uses-field-not-in-equals", BILL, jfile(BILL, "Money"), "hashcode-equals",
  "Keep Money.hashCode consistent with equals",
  """hashCode mixes in the free-text label, which equals ignores, so two Money
  values that are equal can have different hash codes and are not found as
  map keys.""",
  r"""
@Override
public boolean equals(Object o) {
    if (!(o instanceof Money)) {
        return false;
    }
    Money m = (Money) o;
    return amountCents == m.amountCents && currency.equals(m.currency);
}

@Override
public int hashCode() {
    return Objects.hash(amountCents, currency, label);
}
""",
  r"""
@Override
public boolean equals(Object o) {
    if (!(o instanceof Money)) {
        return false;
    }
    Money m = (Money) o;
    return amountCents == m.amountCents && currency.equals(m.currency);
}

@Override
public int hashCode() {
    return Objects.hash(amountCents, currency);
}
""")

J("equals-overload-not-override", COLL, jfile(COLL, "Pair"), "hashcode-equals",
  "Override equals(Object) in Pair",
  """equals(Pair) overloads rather than overrides Object.equals, so collections,
  which call equals(Object), fall back to identity and contains() never finds
  an equal pair.""",
  r"""
public boolean equals(Pair<A, B> other) {
    return other != null
            && Objects.equals(first, other.first)
            && Objects.equals(second, other.second);
}

@Override
public int hashCode() {
    return Objects.hash(first, second);
}
""",
  r"""
@Override
public boolean equals(Object o) {
    if (!(o instanceof Pair)) {
        return false;
    }
    Pair<?, ?> other = (Pair<?, ?>) o;
    return Objects.equals(first, other.first)
            && Objects.equals(second, other.second);
}

@Override
public int hashCode() {
    return Objects.hash(first, second);
}
""")

J("case-insensitive-equals-case-sensitive-hash", CONF, jfile(CONF, "HeaderName"), "hashcode-equals",
  "Hash header names case-insensitively",
  """equals ignores case but hashCode hashes the raw name, so "Content-Type"
  and "content-type" are equal yet land in different hash buckets, and header
  lookups miss.""",
  r"""
@Override
public boolean equals(Object o) {
    return o instanceof HeaderName && name.equalsIgnoreCase(((HeaderName) o).name);
}

@Override
public int hashCode() {
    return name.hashCode();
}
""",
  r"""
@Override
public boolean equals(Object o) {
    return o instanceof HeaderName && name.equalsIgnoreCase(((HeaderName) o).name);
}

@Override
public int hashCode() {
    return name.toLowerCase(Locale.ROOT).hashCode();
}
""")

P("eq-without-hash-unhashable", GEOM, pfile(GEOM, "vec"), "hashcode-equals",
  "Define __hash__ alongside __eq__ for Vec2",
  """Defining __eq__ in a class sets __hash__ to None, so Vec2 instances become
  unhashable and putting them in a set or using them as dict keys raises
  TypeError.""",
  r"""
class Vec2:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __eq__(self, other):
        if not isinstance(other, Vec2):
            return NotImplemented
        return (self.x, self.y) == (other.x, other.y)
""",
  r"""
class Vec2:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __eq__(self, other):
        if not isinstance(other, Vec2):
            return NotImplemented
        return (self.x, self.y) == (other.x, other.y)

    def __hash__(self):
        return hash((self.x, self.y))
""")

P("casefold-eq-raw-hash", TEXT, pfile(TEXT, "tags"), "hashcode-equals",
  "Hash tags by their case-folded name",
  """__eq__ compares case-folded names but __hash__ hashes the original
  spelling, so equal tags like "Python" and "python" usually hash differently
  and a set keeps both.""",
  r"""
class Tag:
    def __init__(self, name):
        self.name = name.strip()

    def __eq__(self, other):
        return isinstance(other, Tag) and self.name.casefold() == other.name.casefold()

    def __hash__(self):
        return hash(self.name)
""",
  r"""
class Tag:
    def __init__(self, name):
        self.name = name.strip()

    def __eq__(self, other):
        return isinstance(other, Tag) and self.name.casefold() == other.name.casefold()

    def __hash__(self):
        return hash(self.name.casefold())
""")

# ---------------------------------------------------------------------------
# date-time (time zones, DST, calendar arithmetic, format patterns)
# ---------------------------------------------------------------------------

J("next-run-plus-24-hours-dst", SCHED, jfile(SCHED, "DailyTrigger"), "date-time",
  "Schedule daily jobs by calendar day, not 24 hours",
  """plusHours(24) adds an exact duration, so across a daylight-saving change
  the next run drifts to 01:00 or 03:00 local time; a daily job must add one
  calendar day.""",
  r"""
public ZonedDateTime nextRun(ZonedDateTime lastRun) {
    ZonedDateTime next = lastRun.plusHours(24);
    if (next.isBefore(ZonedDateTime.now(lastRun.getZone()))) {
        next = ZonedDateTime.now(lastRun.getZone()).plusMinutes(1);
    }
    return next;
}
""",
  r"""
public ZonedDateTime nextRun(ZonedDateTime lastRun) {
    ZonedDateTime next = lastRun.plusDays(1);
    if (next.isBefore(ZonedDateTime.now(lastRun.getZone()))) {
        next = ZonedDateTime.now(lastRun.getZone()).plusMinutes(1);
    }
    return next;
}
""")

J("week-based-year-pattern", BILL, jfile(BILL, "InvoiceNumbers"), "date-time",
  "Use year-of-era in invoice date pattern",
  """The pattern letter Y is the week-based year, which differs from the
  calendar year in the last days of December, so invoices dated 2024-12-30 are
  numbered as 2025.""",
  r"""
private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("YYYYMMdd");

public static String invoiceNumber(LocalDate issued, int sequence) {
    return "INV-" + FORMAT.format(issued) + "-" + String.format("%05d", sequence);
}
""",
  r"""
private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyyMMdd");

public static String invoiceNumber(LocalDate issued, int sequence) {
    return "INV-" + FORMAT.format(issued) + "-" + String.format("%05d", sequence);
}
""")

J("days-until-millis-dst", SCHED, jfile(SCHED, "Deadlines"), "date-time",
  "Count calendar days until a deadline",
  """Dividing elapsed milliseconds by 86,400,000 assumes every day has 24 hours;
  across the spring DST change a day has 23 hours, the division truncates, and
  the deadline is reported one day early.""",
  r"""
public static long daysUntil(ZonedDateTime now, LocalDate due) {
    long start = now.truncatedTo(ChronoUnit.DAYS).toInstant().toEpochMilli();
    long end = due.atStartOfDay(now.getZone()).toInstant().toEpochMilli();
    return (end - start) / (24L * 60 * 60 * 1000);
}
""",
  r"""
public static long daysUntil(ZonedDateTime now, LocalDate due) {
    return ChronoUnit.DAYS.between(now.toLocalDate(), due);
}
""")

P("utcnow-timestamp-local", NET, pfile(NET, "tokens"), "date-time",
  "Use an aware UTC datetime for token expiry",
  """datetime.utcnow() returns a naive datetime, and .timestamp() interprets
  naive values as local time, so on any host not running in UTC the expiry is
  shifted by the UTC offset.""",
  r"""
from datetime import datetime, timedelta


def expiry_epoch(ttl_seconds):
    expires = datetime.utcnow() + timedelta(seconds=ttl_seconds)
    return int(expires.timestamp())
""",
  r"""
from datetime import datetime, timedelta, timezone


def expiry_epoch(ttl_seconds):
    expires = datetime.now(timezone.utc) + timedelta(seconds=ttl_seconds)
    return int(expires.timestamp())
""")

P("next-month-replace-overflow", BILL, pfile(BILL, "cycles"), "date-time",
  "Roll over the year and clamp the day for the next billing date",
  """date.replace(month=d.month + 1) raises ValueError in December (month 13)
  and for days that do not exist in the next month, such as 31 January to
  February.""",
  r"""
from datetime import date


def next_billing_date(d: date) -> date:
    return d.replace(month=d.month + 1)
""",
  r"""
import calendar
from datetime import date


def next_billing_date(d: date) -> date:
    year, month = (d.year + 1, 1) if d.month == 12 else (d.year, d.month + 1)
    last_day = calendar.monthrange(year, month)[1]
    return date(year, month, min(d.day, last_day))
""")

P("strptime-minute-instead-of-month", SCHED, pfile(SCHED, "parsing"), "date-time",
  "Use %m for month when parsing run dates",
  """%M is minutes, not month, so strptime stores the month field as minutes
  and leaves the month at its default of January for every parsed date.""",
  r"""
from datetime import datetime


def parse_run_date(text):
    return datetime.strptime(text.strip(), "%Y-%M-%d").date()
""",
  r"""
from datetime import datetime


def parse_run_date(text):
    return datetime.strptime(text.strip(), "%Y-%m-%d").date()
""")

# ---------------------------------------------------------------------------
# regex-escaping
# ---------------------------------------------------------------------------

J("split-on-unescaped-dot", CONF, jfile(CONF, "SemVer"), "regex-escaping",
  "Escape the dot when splitting version strings",
  """String.split takes a regular expression, and "." matches every character,
  so every token is empty; split drops trailing empty strings, the array is
  empty, and every version parses as 0.0.0.""",
  r"""
public static int[] parse(String version) {
    String[] parts = version.split(".");
    int[] out = new int[3];
    for (int i = 0; i < Math.min(3, parts.length); i++) {
        out[i] = Integer.parseInt(parts[i]);
    }
    return out;
}
""",
  r"""
public static int[] parse(String version) {
    String[] parts = version.split("\\.");
    int[] out = new int[3];
    for (int i = 0; i < Math.min(3, parts.length); i++) {
        out[i] = Integer.parseInt(parts[i]);
    }
    return out;
}
""")

J("replaceall-dollar-in-replacement", BILL, jfile(BILL, "Templates"), "regex-escaping",
  "Quote the replacement text in template rendering",
  """replaceAll treats $ and \\ in the replacement as group references, so a
  value like "$12.50" throws IllegalArgumentException (or inserts a captured
  group) instead of being inserted literally.""",
  r"""
public static String render(String template, Map<String, String> values) {
    String out = template;
    for (Map.Entry<String, String> e : values.entrySet()) {
        out = out.replaceAll("\\{\\{" + e.getKey() + "\\}\\}", e.getValue());
    }
    return out;
}
""",
  r"""
public static String render(String template, Map<String, String> values) {
    String out = template;
    for (Map.Entry<String, String> e : values.entrySet()) {
        out = out.replaceAll("\\{\\{" + e.getKey() + "\\}\\}",
                Matcher.quoteReplacement(e.getValue()));
    }
    return out;
}
""")

J("host-allowlist-regex-injection", NET, jfile(NET, "HostPolicy"), "regex-escaping",
  "Match allowed domains literally",
  """The configured domain is concatenated into a regex, so its dots match any
  character and nothing requires a label boundary; hosts such as
  "evilexample.com" or "examplexcom" pass the allow-list.""",
  r"""
public boolean isAllowed(String host) {
    for (String domain : allowedDomains) {
        if (host.matches(".*" + domain)) {
            return true;
        }
    }
    return false;
}
""",
  r"""
public boolean isAllowed(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    for (String domain : allowedDomains) {
        String d = domain.toLowerCase(Locale.ROOT);
        if (h.equals(d) || h.endsWith("." + d)) {
            return true;
        }
    }
    return false;
}
""")

P("re-split-user-separator", TEXT, pfile(TEXT, "split"), "regex-escaping",
  "Escape user-supplied separators before re.split",
  """The separator is pasted into a regular expression, so metacharacters keep
  their regex meaning: "|" becomes an alternation that matches the surrounding
  whitespace instead of the pipe, and "." matches every character.""",
  r"""
import re


def split_fields(line, separator, maxsplit=0):
    parts = re.split(r"\s*" + separator + r"\s*", line.strip(), maxsplit=maxsplit)
    return [p for p in parts if p]
""",
  r"""
import re


def split_fields(line, separator, maxsplit=0):
    parts = re.split(r"\s*" + re.escape(separator) + r"\s*", line.strip(), maxsplit=maxsplit)
    return [p for p in parts if p]
""")

P("word-boundary-not-raw-string", TEXT, pfile(TEXT, "counting"), "regex-escaping",
  "Use a raw string for the word-boundary pattern",
  """In a normal string literal "\\b" is the backspace character, so the
  pattern looks for backspaces around the word instead of word boundaries and
  never matches ordinary text.""",
  r"""
import re


def count_word(text, word):
    pattern = re.compile("\b" + re.escape(word) + "\b", re.IGNORECASE)
    return len(pattern.findall(text))
""",
  r"""
import re


def count_word(text, word):
    pattern = re.compile(r"\b" + re.escape(word) + r"\b", re.IGNORECASE)
    return len(pattern.findall(text))
""")

P("price-regex-unescaped-dot", BILL, pfile(BILL, "prices"), "regex-escaping",
  "Escape the decimal point in the price pattern",
  """The unescaped '.' matches any character and re.match only anchors at the
  start, so strings like "12x50" or "3.99abc" are accepted as prices.""",
  r"""
import re
from decimal import Decimal

_PRICE = re.compile(r"\d+.\d{2}")


def parse_price(text):
    if not _PRICE.match(text):
        raise ValueError(f"bad price: {text!r}")
    return Decimal(text)
""",
  r"""
import re
from decimal import Decimal

_PRICE = re.compile(r"\d+\.\d{2}")


def parse_price(text):
    if not _PRICE.fullmatch(text):
        raise ValueError(f"bad price: {text!r}")
    return Decimal(text)
""")

# ===========================================================================
# Validation and output
# ===========================================================================

_JAVA_PAIRS = {")": "(", "]": "[", "}": "{"}


def java_brackets_balanced(code: str) -> str | None:
    """Return None if (), [] and {} are balanced, else an error message.

    String, text-block and char literals and // and /* */ comments are skipped.
    """
    stack: list[tuple[str, int]] = []
    i, n, line = 0, len(code), 1
    while i < n:
        c = code[i]
        if c == "\n":
            line += 1
            i += 1
        elif code.startswith("//", i):
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif code.startswith("/*", i):
            j = code.find("*/", i + 2)
            if j < 0:
                return f"line {line}: unterminated comment"
            line += code.count("\n", i, j)
            i = j + 2
        elif code.startswith('"""', i):
            j = code.find('"""', i + 3)
            if j < 0:
                return f"line {line}: unterminated text block"
            line += code.count("\n", i, j)
            i = j + 3
        elif c in "\"'":
            j = i + 1
            while j < n and code[j] != c:
                if code[j] == "\\":
                    j += 1
                elif code[j] == "\n":
                    return f"line {line}: unterminated {c} literal"
                j += 1
            if j >= n:
                return f"line {line}: unterminated {c} literal"
            i = j + 1
        else:
            if c in "([{":
                stack.append((c, line))
            elif c in ")]}":
                if not stack or stack[-1][0] != _JAVA_PAIRS[c]:
                    return f"line {line}: unexpected {c!r}"
                stack.pop()
            i += 1
    if stack:
        return f"line {stack[-1][1]}: unclosed {stack[-1][0]!r}"
    return None


def python_parse_error(code: str) -> str | None:
    try:
        ast.parse(textwrap.dedent(code))
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    return None


def make_diff(buggy: str, fixed: str, file: str) -> str:
    return "".join(
        difflib.unified_diff(
            buggy.splitlines(keepends=True),
            fixed.splitlines(keepends=True),
            f"a/{file}",
            f"b/{file}",
        )
    )


def build_records() -> list[dict]:
    out = []
    for r in RECORDS:
        out.append(
            {
                "id": f"sample:{r['lang']}/{r['slug']}",
                "source": SOURCE,
                "project": r["project"],
                "language": r["lang"],
                "buggy_code": r["buggy"],
                "fixed_code": r["fixed"],
                "root_cause": r["root_cause"],
                "description": r["description"],
                "diff": make_diff(r["buggy"], r["fixed"], r["file"]),
                "license": LICENSE,
                "meta": {"category": r["category"], "file": r["file"]},
            }
        )
    return out


def validate(records: list[dict]) -> list[str]:
    errors: list[str] = []
    seen_ids: set[str] = set()
    seen_pairs: dict[tuple[str, str], str] = {}
    for rec in records:
        rid = rec["id"]
        where = f"{rid}:"
        if not re.fullmatch(r"sample:(java|python)/[a-z0-9]+(?:-[a-z0-9]+)*", rid):
            errors.append(f"{where} malformed id")
        if rid in seen_ids:
            errors.append(f"{where} duplicate id")
        seen_ids.add(rid)
        if rec["language"] not in LANGUAGES:
            errors.append(f"{where} unknown language {rec['language']!r}")
        if rec["meta"]["category"] not in CATEGORIES:
            errors.append(f"{where} unknown category {rec['meta']['category']!r}")
        for field in ("project", "description", "root_cause", "buggy_code", "fixed_code"):
            if not rec[field].strip():
                errors.append(f"{where} empty {field}")
        if rec["buggy_code"] == rec["fixed_code"]:
            errors.append(f"{where} buggy_code == fixed_code")
        if not rec["diff"].strip():
            errors.append(f"{where} empty diff")
        pair = (rec["buggy_code"], rec["fixed_code"])
        if pair in seen_pairs:
            errors.append(f"{where} same (buggy, fixed) pair as {seen_pairs[pair]}")
        seen_pairs.setdefault(pair, rid)
        for field in ("buggy_code", "fixed_code"):
            code = rec[field]
            lines = code.count("\n")
            # The buggy function is 5-40 lines; a fix may legitimately shrink it.
            lo = 5 if field == "buggy_code" else 2
            if not lo <= lines <= 40:
                errors.append(f"{where} {field} has {lines} lines")
            if rec["language"] == "python":
                err = python_parse_error(code)
            else:
                err = java_brackets_balanced(code)
            if err:
                errors.append(f"{where} {field} does not parse: {err}")
        if rec["language"] == "java" and not rec["meta"]["file"].endswith(".java"):
            errors.append(f"{where} Java record with non-.java file")
        if rec["language"] == "python" and not rec["meta"]["file"].endswith(".py"):
            errors.append(f"{where} Python record with non-.py file")
    # Coverage requirements.
    langs = Counter(r["language"] for r in records)
    for lang in LANGUAGES:
        if langs[lang] < 55:
            errors.append(f"only {langs[lang]} {lang} records (want >= 55)")
    by_cat = Counter(r["meta"]["category"] for r in records)
    for cat in CATEGORIES:
        if by_cat[cat] < 3:
            errors.append(f"category {cat} has only {by_cat[cat]} records")
    projects = Counter(r["project"] for r in records)
    for project, count in projects.items():
        project_langs = {r["language"] for r in records if r["project"] == project}
        if count < 3 or project_langs != set(LANGUAGES):
            errors.append(f"project {project} should have several records in both languages")
    return errors


def summary_table(records: list[dict]) -> str:
    counts = Counter((r["meta"]["category"], r["language"]) for r in records)
    rows = ["| category | java | python | total |", "|---|---:|---:|---:|"]
    for cat in CATEGORIES:
        j, p = counts[(cat, "java")], counts[(cat, "python")]
        rows.append(f"| {cat} | {j} | {p} | {j + p} |")
    tj = sum(1 for r in records if r["language"] == "java")
    tp = sum(1 for r in records if r["language"] == "python")
    rows.append(f"| **total** | **{tj}** | **{tp}** | **{tj + tp}** |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    repo_root = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=repo_root / "data" / "sample" / "sample.jsonl",
                    help="output JSONL path (default: data/sample/sample.jsonl)")
    ap.add_argument("--check", action="store_true", help="validate only, do not write")
    args = ap.parse_args(argv)

    records = build_records()
    errors = validate(records)
    if errors:
        for e in errors:
            print(f"error: {e}", file=sys.stderr)
        print(f"{len(errors)} validation error(s); nothing written", file=sys.stderr)
        return 1

    if not args.check:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            for rec in records:
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
        print(f"wrote {len(records)} records to {args.out}", file=sys.stderr)

    print(summary_table(records))
    projects = Counter(r["project"] for r in records)
    print()
    print("| project | records |")
    print("|---|---:|")
    for project in sorted(projects):
        print(f"| {project} | {projects[project]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
