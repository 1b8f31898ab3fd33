"""At the end of a benchmark session: the table of every recorded row (``_bench_table``),
printed and written to build/bench-table.md."""

import _bench_table


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _bench_table.ROWS:
        return
    terminalreporter.write_sep("=", "benchmarks: ours against the reference, in one process")
    terminalreporter.write_line(_bench_table.render())
    terminalreporter.write_line(f"(written to {_bench_table.write()})")
