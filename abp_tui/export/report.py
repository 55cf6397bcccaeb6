"""The bundle's ``report.html``: one self-contained page with the tables, plots and protocol.

No network resource of any kind (inline CSS, inline SVG, no scripts, no fonts, no images); links
only to files inside the bundle. Every string that comes from a record (task texts, outputs,
names, rationales, notes) is made visible with :func:`abp_tui.text.safe.safe_text` and then
HTML-escaped, so no record can add markup to the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any
from urllib.parse import quote

from abp_tui.export import records as rec
from abp_tui.export.bundle_analysis import Analysis, Summary
from abp_tui.export.canonical import cell
from abp_tui.export.gate import PENDING, GateStatus
from abp_tui.export.tables import (
    Table,
    agreement_table,
    comparison_display_table,
    disagreement_table,
    efficiency_display_table,
    excluded_table,
    findings_table,
    group_display_table,
    judgments_table,
    position_table,
)
from abp_tui.stats.agreement import AgreementReport
from abp_tui.text.safe import safe_text

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;
padding:1rem 2rem;color:#1b1b1b;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{border-bottom:1px solid #ccc;padding-bottom:.2rem;
margin-top:2.2rem}h3{margin-top:1.4rem}
.status{padding:.8rem 1rem;border-radius:4px;margin:1rem 0;font-weight:600}
.status.pending{background:#fff4d6;border:1px solid #d9a400}
.status.published{background:#e3f4e1;border:1px solid #3b8a34}
.synthetic{background:#fde3e3;border:1px solid #b33;padding:.6rem 1rem;border-radius:4px}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.6rem 0;font-size:.85rem}
th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:#f2f2f2;position:sticky;top:0}
td.num{text-align:right;font-variant-numeric:tabular-nums}
pre.text{white-space:pre-wrap;word-break:break-word;background:#f7f7f7;border:1px solid #e2e2e2;
padding:.5rem;font-size:.85rem;max-height:30rem;overflow:auto}
nav a{margin-right:.8rem}code{background:#f2f2f2;padding:0 .2rem}
dl.task dt{font-weight:600;margin-top:.4rem}
""".strip()


def e(value: Any) -> str:
    """A record's value as safe HTML text."""
    return escape(safe_text(cell(value)), quote=True)


def _table(table_id: str, table: Table, caption: str = "") -> str:
    header, rows = table
    out = [f'<div class="scroll"><table id="{e(table_id)}">']
    if caption:
        out.append(f"<caption>{e(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr></thead>")
    out.append("<tbody>")
    for row in rows:
        cells = []
        for value in row:
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            cells.append(f'<td class="num">{e(value)}</td>' if numeric else f"<td>{e(value)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _pre(text: str) -> str:
    return f'<pre class="text">{e(text)}</pre>' if text else "<p><em>(empty)</em></p>"


def _link(path: str, label: str) -> str:
    return f'<a href="{escape(quote(path), quote=True)}">{e(label)}</a>'


def _list(items: Sequence[str], list_id: str = "") -> str:
    ident = f' id="{e(list_id)}"' if list_id else ""
    return f"<ul{ident}>" + "".join(f"<li>{e(i)}</li>" for i in items) + "</ul>"


def render(
    analysis: Analysis,
    summary: Summary,
    gate: GateStatus,
    agreement: AgreementReport,
    limitations: Sequence[str],
    charts: dict[str, str],
) -> str:
    inputs = analysis.inputs
    study, design, rubric = inputs.study, inputs.design, inputs.rubric
    pending = gate.status == PENDING
    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # Nothing on this page may be fetched from anywhere.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{e(study.name or study.id)}: {e(gate.status)}</title>",
        f"<style>{CSS}</style></head><body>",
        f'<header id="top"><h1>{e(study.name or study.id)}</h1>',
        f"<p>Study <code>{e(study.id)}</code> ({e(study.protocol)}), design "
        f"<code>{e(design.name)}</code> version {design.version}, design hash "
        f"<code>{e(design.sha256)}</code>, seed {design.seed}, rubric <code>{e(rubric.id)}</code> "
        f"{e(rubric.version)}.</p>",
    ]
    if pending:
        out.append(
            '<div id="status" class="status pending">Protocol published / results pending. '
            "What the publication gate still needs:</div>"
        )
        out.append(_list(gate.missing, "missing"))
    else:
        out.append(
            '<div id="status" class="status published">Results published: every requirement '
            "of the publication gate is met.</div>"
        )
    if study.synthetic:
        out.append(
            '<p class="synthetic" id="synthetic">SYNTHETIC DATA: no real model produced these '
            "records. Nothing here is a benchmark result and none of it may be cited as one.</p>"
        )
    out.append(
        "<nav>"
        + "".join(
            f'<a href="#{k}">{v}</a>'
            for k, v in (
                ("summary", "Summary"),
                ("comparisons", "Comparisons"),
                ("agreement", "Agreement"),
                ("excluded", "Excluded runs"),
                ("findings", "Findings"),
                ("limitations", "Limitations"),
                ("gate", "Publication gate"),
                ("protocol", "Protocol"),
                ("runs", "Runs"),
                ("judgments", "Judgments"),
                ("audit", "Audit log"),
                ("reproduce", "Verify"),
            )
        )
        + "</nav></header>"
    )
    if pending:
        out.append(
            "<p><strong>Results pending:</strong> the tables below are computed from the "
            "judgments made so far and are not the study's results.</p>"
        )

    # Summary.
    out.append('<section id="summary"><h2>Summary by condition</h2>')
    out.append(
        "<p>Pass rate is MODEL_PASS / (MODEL_PASS + MODEL_FAIL) with its Wilson 95% interval; "
        "the other four result states are counted separately and never enter the denominator. "
        "Fatal failures and acceptance are over runs judged by a person and not excluded; each "
        "rubric dimension's distribution is over runs judged by a person. There is no blended "
        "score across tasks.</p>"
    )
    out.append(_table("summary-conditions", group_display_table(summary.conditions, rubric, False)))
    out.append(charts["condition"])
    out.append("<h3>By task and condition</h3>")
    out.append(_table("summary-tasks", group_display_table(summary.by_task, rubric, True)))
    out.append(charts["task"])
    out.append(
        "<p>Machine-readable tables (every count and bound): "
        + ", ".join(
            _link(p, p)
            for p in ("results/conditions.csv", "results/tasks.csv", "results/summary.json")
        )
        + ".</p></section>"
    )

    out.append('<section id="comparisons"><h2>Comparisons</h2>')
    out.append(
        "<p>Paired pass/fail on the same task and trial, exact McNemar on the discordant pairs "
        "(undefined when there are none); preferences as wins, ties and insufficient evidence "
        "with an exact binomial test on the decisive judgments.</p>"
    )
    out.append(_table("comparisons-table", comparison_display_table(summary.comparisons)))
    out.append(
        "<h3>Efficiency</h3><p>Relative median difference (median b - median a) / median a "
        "over runs not excluded, with a seeded percentile bootstrap interval; missing "
        "measurements are left out and counted.</p>"
    )
    out.append(_table("efficiency", efficiency_display_table(summary.comparisons)))
    out.append(
        "<h3>Position bias</h3><p>How often the response shown first (left) was preferred "
        "among decisive judgments, tested against one half.</p>"
    )
    out.append(_table("position-bias", position_table(summary.position_bias)))
    out.append(_list(summary.notes, "notes"))
    out.append("</section>")

    out.append('<section id="agreement"><h2>Agreement between reviewers</h2>')
    out.append(
        "<p>Each figure with its denominators (items, reviewers, judgments) and a seeded "
        f"bootstrap interval ({agreement.resamples} resamples, seed {agreement.seed}); "
        "undefined figures give their reason. Agreement is not correctness.</p>"
    )
    out.append(_table("agreement-table", agreement_table(agreement)))
    out.append("<h3>Disagreements</h3>")
    out.append(_table("disagreements", disagreement_table(analysis.disagreements)))
    out.append("</section>")

    out.append('<section id="excluded"><h2>Excluded runs</h2>')
    out.append(
        "<p>Runs outside the quality denominator (INFRA_ERROR, PROVIDER_BLOCK, INVALID_TEST, "
        "GRADER_DISPUTE) or excluded by their source, with their states and reasons. They stay "
        "visible and are not counted as losses.</p>"
    )
    out.append(_table("excluded-runs", excluded_table(analysis)))
    out.append("</section>")

    out.append('<section id="findings"><h2>Findings</h2>')
    out.append(
        "<p>Latest revision of each finding, with its occurrence count and retest status; every "
        f"revision is in {_link(rec.FINDINGS, rec.FINDINGS)}.</p>"
    )
    out.append(_table("findings-table", findings_table(inputs.findings)))
    out.append("</section>")

    out.append('<section id="limitations"><h2>Limitations</h2>')
    out.append(_list(list(limitations), "limitations-list"))
    out.append("</section>")

    out.append('<section id="gate"><h2>Publication gate</h2>')
    out.append(
        _table(
            "gate-checks",
            (
                ["requirement", "met", "detail"],
                [[c.requirement, c.met, c.detail] for c in gate.checks],
            ),
        )
    )
    out.append("</section>")

    # Protocol.
    out.append('<section id="protocol"><h2>Protocol</h2>')
    out.append(_pre(study.description))
    out.append(f"<h3>Rubric: {e(rubric.name)} {e(rubric.version)}</h3>")
    anchor_rows: list[list[Any]] = []
    for d in rubric.dimensions:
        for score in d.scale:
            anchor_rows.append([d.name, d.id, d.scored, score, d.anchors.get(score, "")])
    out.append(_table("rubric", (["dimension", "id", "scored", "score", "anchor"], anchor_rows)))
    out.append(f"<p><strong>Acceptance rule:</strong> {e(rubric.acceptance.text)}</p>")
    out.append("<p><strong>Fatal criteria</strong> (any one is MODEL_FAIL whatever the total):</p>")
    out.append(_list(list(rubric.fatal_criteria), "fatal-criteria"))
    out.append('<h3 id="conditions">Conditions and their instructions</h3>')
    for c in inputs.conditions:
        version = f" (version {e(c.version)})" if c.version else ""
        out.append(f"<h4>{e(c.id)}: {e(c.label)}{version}</h4>")
        out.append(_pre(c.instructions))
    out.append('<h3 id="tasks">Tasks (full texts)</h3>')
    for t in inputs.tasks:
        out.append(f'<h4 id="task-{e(t.id)}">{e(t.id)} {e(t.title)}</h4><dl class="task">')
        for label, text in (
            ("Risk type", t.risk_type),
            ("Version", t.version),
            ("Prompt", t.prompt),
            ("Base instruction", t.base_instruction),
            ("Evidence", t.evidence),
            ("Expected behaviour (grader only)", t.expected_behaviour),
        ):
            if text:
                out.append(f"<dt>{e(label)}</dt><dd>{_pre(text)}</dd>")
        if t.fatal_criteria:
            out.append(f"<dt>Fatal criteria</dt><dd>{_list(list(t.fatal_criteria))}</dd>")
        if t.placeholder:
            out.append("<dt>Note</dt><dd>No task record was imported for this id.</dd>")
        out.append("</dl>")
    out.append("</section>")

    # Runs.
    out.append('<section id="runs"><h2>Runs and final verdicts</h2>')
    out.append(
        "<p>One row per run: the outcome that counts and its source (adjudicated, unanimous, "
        "single review, unresolved, automated verification, record, unjudged); component scores "
        "with every reviewer's rationale are in "
        f"{_link('results/verdicts.jsonl', 'verdicts.jsonl')}.</p>"
    )
    rows = []
    runs = {r.id: r for r in inputs.runs}
    for v in analysis.verdicts:
        run = runs[v.run]
        scores = ", ".join(f"{k}={s:g}" for k, s in sorted(v.scores.items()))
        rows.append(
            [
                v.run,
                v.task,
                v.condition,
                v.trial,
                v.state.value if v.state else "unjudged",
                v.source,
                v.automated_outcome,
                scores,
                list(v.fatal_hits),
                run.output.path if run.output else "missing",
                run.trace.path if run.trace else "",
            ]
        )
    header = [
        "run",
        "task",
        "condition",
        "trial",
        "state",
        "source",
        "automated outcome",
        "scores",
        "fatal hits",
        "raw output",
        "trace",
    ]
    out.append(_table("runs-table", (header, rows)))
    out.append("</section>")

    out.append('<section id="judgments"><h2>Every judgment and adjudication</h2>')
    out.append(
        "<p>All revisions, drafts included, as each reviewer saved them, then the "
        "adjudications with their notes. Positions are as shown to the reviewer.</p>"
    )
    out.append(_table("judgments-table", judgments_table(analysis)))
    out.append("</section>")

    out.append('<section id="audit"><h2>Audit log</h2>')
    out.append(
        _table(
            "audit-log",
            (
                ["at", "actor", "action", "detail"],
                [[a.at, a.actor, a.action, _compact(a.detail)] for a in inputs.audit],
            ),
        )
    )
    out.append(
        "<p>Exports are recorded in the workstation's audit log but are not part of what they "
        "export.</p></section>"
    )

    out.append('<section id="reproduce"><h2>Verify this bundle</h2>')
    out.append(
        "<p>Every file's SHA-256 is in <code>manifest.json</code>. To recompute the hashes and "
        "re-derive every table, plot and this page from the bundle's own records, run "
        "<code>abp-tui verify .</code> in this folder (or <code>abp-tui verify</code> with the "
        ".zip).</p></section>"
    )
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _compact(detail: dict[str, Any]) -> str:
    import json

    return json.dumps(detail, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
