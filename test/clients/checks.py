"""One line per check, a summary line, and a non-zero exit status on any failure."""

import sys


class Checks:
    def __init__(self, program):
        self.program = program
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        """Records one check; detail says what was seen when it fails."""
        if ok:
            self.passed += 1
            print("ok - %s" % name)
        else:
            self.failed += 1
            print("not ok - %s%s" % (name, ": " + str(detail) if detail else ""))
        sys.stdout.flush()
        return ok

    def equal(self, name, got, want):
        return self.check(name, got == want, "got %r, want %r" % (got, want))

    def finish(self):
        print("%s: %d passed, %d failed" % (self.program, self.passed, self.failed))
        sys.exit(1 if self.failed or not self.passed else 0)
