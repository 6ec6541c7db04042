"""Properties of what the user gives (issue 27): a price read from any number format, currency
mark and CSV separator is the price written or a refusal, never another number; every
provider's names in both languages land on that provider, and a name no provider has never
lands anywhere."""

from __future__ import annotations

import csv
import datetime as dt
import io
import unicodedata
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gpuwise import units
from gpuwise.catalog import load_catalog
from gpuwise.catalog.providers import find_id, names_of, provider_index, provider_key, resolve
from gpuwise.errors import UserError
from gpuwise.prices.quote_rows import read_rows
from gpuwise.prices.quotes import quote_from_row

STYLES = (
    "plain", "comma_group_dot", "dot_group_comma", "space_group_comma", "space_group_dot",
    "comma_decimal",
)  # fmt: skip
MARKS = {  # (before, after, currency it means)
    "none": ("", "", None),
    "dollar": ("$", "", "USD"),
    "us-dollar": ("US$", "", "USD"),
    "yen": ("¥", "", "CNY"),
    "fullwidth-yen": ("￥", "", "CNY"),
    "yuan": ("", "元", "CNY"),
    "rmb": ("", " RMB", "CNY"),
    "cny-first": ("CNY ", "", "CNY"),
    "usd": ("", " USD", "USD"),
    "euro": ("€", "", "EUR"),
    "eur": ("", " EUR", "EUR"),
}
DECIMAL_OF = {",": ".", ";": ",", "\t": "?"}
amounts = st.decimals(
    min_value=Decimal("0.01"), max_value=Decimal("99999999.99"), places=2, allow_nan=False
)


def render(amount: Decimal, style: str) -> str:
    """`amount` written as people write it in one locale's style."""
    whole, frac = f"{amount:.2f}".split(".")
    groups = [whole[max(0, i - 3) : i] for i in range(len(whole), 0, -3)][::-1]
    return {
        "plain": f"{whole}.{frac}",
        "comma_group_dot": ",".join(groups) + "." + frac,
        "dot_group_comma": ".".join(groups) + "," + frac,
        "space_group_comma": " ".join(groups) + "," + frac,
        "space_group_dot": " ".join(groups) + "." + frac,
        "comma_decimal": f"{whole},{frac}",
    }[style]


def must_read(text: str, decimal: str) -> bool:
    """Formats that are unambiguous where they are written: the test demands a reading."""
    lone_comma = "," in text and "." not in text and " " not in text
    return not (lone_comma and decimal == ".")  # `1500,25` on a dot-decimal line is refused


@settings(max_examples=400, deadline=None)
@given(amounts, st.sampled_from(STYLES), st.sampled_from(sorted(MARKS)), st.sampled_from(",;\t"))
def test_a_price_is_the_number_written_or_refused(
    amount: Decimal, style: str, mark: str, sep: str
) -> None:
    before, after, currency = MARKS[mark]
    number = render(amount, style)
    text = before + number + after
    decimal = DECIMAL_OF[sep]
    try:
        parsed = units.read(text, "quote_price", "price", decimal)  # type: ignore[arg-type]
    except UserError as err:
        assert err.key in ("units.not_a_number", "units.ambiguous_marks"), (text, err.key)
        assert not must_read(number, decimal), (text, decimal, err.render())
        if err.key == "units.ambiguous_marks":  # the true reading is among those offered
            assert f"{float(amount):g}" in err.params["readings"].split(" / "), err.params
        return
    assert parsed.value == pytest.approx(float(amount)), (text, decimal)
    assert parsed.currency == currency


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    amounts,
    st.sampled_from(STYLES),
    st.sampled_from(["none", "yuan", "dollar", "rmb"]),
    st.sampled_from(",;\t"),
    st.sampled_from(["autodl", "AutoDL", "华为云", "腾讯云", "aliyun"]),
)
def test_a_csv_row_keeps_its_price_whatever_the_separator(
    amount: Decimal, style: str, mark: str, sep: str, provider: str
) -> None:
    before, after, currency = MARKS[mark]
    price = before + render(amount, style) + after
    out = io.StringIO()
    writer = csv.writer(out, delimiter=sep, lineterminator="\n")
    writer.writerows([["provider", "instance", "gpu", "billing", "price"],
                      [provider, "x", "A10", "on-demand", price]])  # fmt: skip
    rows = read_rows(out.getvalue(), "csv")
    assert rows.decimal == DECIMAL_OF[sep]  # the separator was read from the header
    [(line, row)] = rows.rows
    cat = load_catalog()
    try:
        q = quote_from_row(cat, line, row, dt.date(2026, 12, 1), rows.decimal)
    except UserError as err:
        assert not must_read(render(amount, style), rows.decimal), (price, sep, err.render())
        return
    assert q.price == pytest.approx(float(amount)) and q.currency == currency
    assert q.provider == find_id(cat.providers, provider)


def test_ambiguous_examples() -> None:
    for text, decimal in (("1,500", ","), ("1.500", ","), ("1,500", "?"), ("1 500,000", ".")):
        with pytest.raises(UserError) as err:
            units.read(text, "quote_price", "price", decimal)  # type: ignore[arg-type]
        assert err.value.key == "units.ambiguous_marks"
        assert "1500" in err.value.params["readings"]
    assert units.read("1,500", "quote_price", "price").value == 1500  # a dot-decimal line
    assert units.read("1,98", "quote_price", "price", ",").value == 1.98


# ---------------------------------------------------------------- provider names


def _variants(name: str) -> st.SearchStrategy[str]:
    """How people type a name: any case, spaces or punctuation around and inside, full width."""

    def fullwidth(s: str) -> str:
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)

    return st.tuples(
        st.sampled_from([str.lower, str.upper, str.title, lambda s: s, fullwidth]),
        st.sampled_from(["", " ", "  ", "-", "_", "(", "（"]),
        st.sampled_from(["", " ", ".", ")", "）", "  "]),
    ).map(lambda t: t[1] + t[0](name) + t[2])


def test_every_provider_name_round_trips() -> None:
    cat = load_catalog()
    index, clashes = provider_index(cat.providers.values())
    assert not clashes, clashes
    names = [(p.id, n) for p in cat.providers.values() for n in names_of(p)]
    assert len(names) >= 3 * len(cat.providers)
    zh = [n for _, n in names if any("\u4e00" <= c <= "\u9fff" for c in n)]
    assert len(zh) >= 15  # Chinese names are resolved, not dropped
    for pid, name in names:
        assert resolve(index, name) == pid, (pid, name)

    @settings(max_examples=300, deadline=None)
    @given(st.sampled_from(names).flatmap(lambda pn: st.tuples(st.just(pn[0]), _variants(pn[1]))))
    def check(pair: tuple[str, str]) -> None:
        pid, typed = pair
        assert find_id(cat.providers, typed) == pid, (pid, typed)

    check()


def test_an_unknown_name_never_resolves() -> None:
    cat = load_catalog()
    index, _ = provider_index(cat.providers.values())
    cjk = st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1, max_size=6)
    any_text = st.text(min_size=0, max_size=20)

    @settings(max_examples=400, deadline=None)
    @given(st.one_of(cjk, any_text, cjk.map(lambda s: s + "云"), cjk.map(lambda s: "华为" + s)))
    def check(name: str) -> None:
        key = provider_key(name)
        assume(key not in index)
        assert resolve(index, name) is None
        with pytest.raises(UserError) as err:
            find_id(cat.providers, name)
        assert err.value.key == "providers.unknown"

    check()


def test_keys_keep_every_script() -> None:
    """The old key dropped non-ASCII, so 阿里云 and 华为云 were both ""."""
    assert provider_key("阿里云") != provider_key("华为云")
    assert provider_key("Ｈｕａｗｅｉ Ｃｌｏｕｄ") == provider_key("huawei-cloud") == "huaweicloud"
    assert provider_key("").strip() == "" and provider_key("!!! ") == ""
    assert (
        unicodedata.normalize("NFKC", "华为　云") == "华为 云"
        and provider_key("华为　云") == "华为云"
    )
