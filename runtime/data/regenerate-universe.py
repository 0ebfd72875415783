#!/usr/bin/env python3
"""Regenerate paper-universe.tsv: the symbols the paper broker's simulated market lists.

Stocks: the S&P 500 and the Nasdaq-100 as the PyPI package pytickersymbols ships them (its
symbol, name, and exchange from its "traded as" text). ETFs, and the E*TRADE spellings of a
few names, are listed below by hand. Reference prices and daily volumes are rough levels so
simulated prices have the real order of magnitude; a row without them gets seeded levels.

    python3 -m venv /tmp/u && /tmp/u/bin/pip install pytickersymbols==1.17.10
    /tmp/u/bin/python runtime/data/regenerate-universe.py > runtime/data/paper-universe.tsv

Paper trades no mutual funds, so none is listed.
"""

import datetime
import re
import sys
import unicodedata
from importlib.metadata import version

from pytickersymbols import PyTickerSymbols

# E*TRADE-style names (and levels) for symbols the tests and docs use most.
OVERRIDES = {
    "AAPL": ("APPLE INC COM", 230, 55e6),
    "MSFT": ("MICROSOFT CORP COM", 420, 22e6),
    "IBM": ("INTERNATIONAL BUSINESS MACHS COM", 220, 4e6),
    "GOOG": ("ALPHABET INC CAP STK CL C", 175, 20e6),
    "GOOGL": ("ALPHABET INC CAP STK CL A", 174, 30e6),
    "AMZN": ("AMAZON COM INC COM", 200, 40e6),
    "NVDA": ("NVIDIA CORPORATION COM", 130, 250e6),
    "TSLA": ("TESLA INC COM", 250, 90e6),
    "META": ("META PLATFORMS INC CL A", 600, 15e6),
    "BRK.B": ("BERKSHIRE HATHAWAY INC DEL CL B NEW", 480, 4e6),
    "BF.B": ("BROWN FORMAN CORP CL B", 35, 3e6),
    "FOX": ("FOX CORP CL B", 50, 1e6),
    "FOXA": ("FOX CORP CL A", 55, 3e6),
    "NWS": ("NEWS CORP NEW CL B", 30, 1e6),
    "NWSA": ("NEWS CORP NEW CL A", 28, 3e6),
}

# Rough price levels of other large names (order of magnitude only).
LEVELS = {
    "JPM": 250, "V": 330, "MA": 540, "UNH": 300, "JNJ": 155, "XOM": 110, "WMT": 95,
    "PG": 165, "HD": 390, "CVX": 150, "LLY": 800, "AVGO": 230, "COST": 950, "ABBV": 190,
    "KO": 70, "PEP": 150, "MRK": 90, "BAC": 45, "ORCL": 180, "NFLX": 1000, "AMD": 150,
    "CRM": 300, "ADBE": 400, "INTC": 22, "CSCO": 60, "DIS": 110, "MCD": 300, "NKE": 70,
    "BA": 180, "CAT": 380, "GS": 600, "MS": 130, "WFC": 75, "C": 75, "PFE": 26, "T": 27,
    "VZ": 42, "QCOM": 160, "TXN": 190, "AMGN": 290, "HON": 210, "GE": 200,
    "UBER": 75, "PYPL": 75, "SBUX": 95, "F": 10, "GM": 50, "PLTR": 100, "MU": 100,
    "AZO": 3500, "ORLY": 1300, "NVR": 7500, "BKNG": 5000, "CMG": 55, "MELI": 2000,
}

# name, exchange, level, daily volume
ETFS = {
    "SPY": ("SPDR S&P 500 ETF TR TR UNIT", "ARCA", 600, 70e6),
    "VOO": ("VANGUARD INDEX FDS S&P 500 ETF SHS", "ARCA", 550, 6e6),
    "IVV": ("ISHARES TR CORE S&P 500 ETF", "ARCA", 600, 5e6),
    "VTI": ("VANGUARD INDEX FDS TOTAL STK MKT", "ARCA", 290, 4e6),
    "QQQ": ("INVESCO QQQ TR UNIT SER 1", "NSDQ", 520, 40e6),
    "IWM": ("ISHARES TR RUSSELL 2000 ETF", "ARCA", 220, 30e6),
    "DIA": ("SPDR DOW JONES INDL AVERAGE ETF TR UNIT SER 1", "ARCA", 430, 3e6),
    "RSP": ("INVESCO EXCHANGE TRADED FD TR S&P500 EQL WGT", "ARCA", 180, 6e6),
    "MDY": ("SPDR S&P MIDCAP 400 ETF TR UTSER1 S&PDCRP", "ARCA", 560, 1e6),
    "IJH": ("ISHARES TR CORE S&P MCP ETF", "ARCA", 62, 8e6),
    "IJR": ("ISHARES TR CORE S&P SCP ETF", "ARCA", 115, 4e6),
    "VUG": ("VANGUARD INDEX FDS GROWTH ETF", "ARCA", 400, 1e6),
    "VTV": ("VANGUARD INDEX FDS VALUE ETF", "ARCA", 170, 3e6),
    "VIG": ("VANGUARD SPECIALIZED FUNDS DIV APP ETF", "ARCA", 195, 1e6),
    "SCHD": ("SCHWAB STRATEGIC TR US DIVIDEND EQ", "ARCA", 27, 15e6),
    "VEA": ("VANGUARD TAX-MANAGED FDS FTSE DEV MKT ETF", "ARCA", 50, 12e6),
    "VWO": ("VANGUARD INTL EQUITY INDEX FDS FTSE EMR MKT ETF", "ARCA", 45, 9e6),
    "EFA": ("ISHARES TR MSCI EAFE ETF", "ARCA", 80, 15e6),
    "EEM": ("ISHARES TR MSCI EMG MKT ETF", "ARCA", 44, 30e6),
    "XLK": ("SELECT SECTOR SPDR TR TECHNOLOGY", "ARCA", 230, 6e6),
    "XLF": ("SELECT SECTOR SPDR TR FINANCIAL", "ARCA", 50, 40e6),
    "XLE": ("SELECT SECTOR SPDR TR ENERGY", "ARCA", 90, 15e6),
    "XLV": ("SELECT SECTOR SPDR TR HEALTH CARE", "ARCA", 140, 8e6),
    "XLI": ("SELECT SECTOR SPDR TR INDL", "ARCA", 135, 9e6),
    "XLY": ("SELECT SECTOR SPDR TR CONS DISCRT", "ARCA", 210, 4e6),
    "XLP": ("SELECT SECTOR SPDR TR CONS STPLS", "ARCA", 80, 9e6),
    "XLU": ("SELECT SECTOR SPDR TR UTILITIES", "ARCA", 78, 12e6),
    "XLB": ("SELECT SECTOR SPDR TR MATERIALS", "ARCA", 88, 5e6),
    "XLRE": ("SELECT SECTOR SPDR TR RL EST SEL SEC", "ARCA", 42, 6e6),
    "XLC": ("SELECT SECTOR SPDR TR COMMUNICATION", "ARCA", 100, 4e6),
    "SMH": ("VANECK ETF TRUST SEMICONDUCTOR ET", "NSDQ", 250, 7e6),
    "SOXX": ("ISHARES TR SEMICONDUCTOR ETF", "NSDQ", 230, 4e6),
    "XBI": ("SPDR SER TR S&P BIOTECH", "ARCA", 90, 8e6),
    "KRE": ("SPDR SER TR S&P REGL BKG", "ARCA", 60, 12e6),
    "VNQ": ("VANGUARD INDEX FDS REAL ESTATE ETF", "ARCA", 90, 4e6),
    "AGG": ("ISHARES TR CORE US AGGBD ET", "ARCA", 99, 7e6),
    "BND": ("VANGUARD BD INDEX FDS TOTAL BND MRKT", "NSDQ", 73, 6e6),
    "LQD": ("ISHARES TR IBOXX INV CP ETF", "ARCA", 108, 20e6),
    "HYG": ("ISHARES TR IBOXX HI YD ETF", "ARCA", 80, 35e6),
    "TLT": ("ISHARES TR 20 YR TR BD ETF", "NSDQ", 90, 35e6),
    "IEF": ("ISHARES TR 7-10 YR TRSY BD", "NSDQ", 95, 10e6),
    "SHY": ("ISHARES TR 1-3 YR TREAS BD", "NSDQ", 82, 4e6),
    "GLD": ("SPDR GOLD TR GOLD SHS", "ARCA", 250, 8e6),
    "SLV": ("ISHARES SILVER TR ISHARES", "ARCA", 30, 20e6),
    "USO": ("UNITED STS OIL FD LP UNITS", "ARCA", 75, 4e6),
    "GDX": ("VANECK ETF TRUST GOLD MINERS ETF", "ARCA", 40, 20e6),
    "ARKK": ("ARK ETF TR INNOVATION ETF", "ARCA", 55, 10e6),
    "TQQQ": ("PROSHARES TR ULTRAPRO QQQ", "NSDQ", 75, 60e6),
    "SQQQ": ("PROSHARES TR ULTRAPRO SHORT QQQ", "NSDQ", 30, 80e6),
    "IBIT": ("ISHARES BITCOIN TR SHS", "NSDQ", 50, 40e6),
}

SYMBOL = re.compile(r"^[A-Z]{1,5}(\.[A-Z])?$")


def ascii_upper(text):
    text = text.replace("\u2013", "-").replace("\u2014", "-")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(text.upper().split())


def exchange_of(stock, nasdaq100):
    """NYSE or NSDQ, from the "traded as" text naming this symbol, else the index."""
    sym = re.escape(stock["symbol"])
    traded = (stock.get("metadata") or {}).get("traded_as") or ""
    m = re.search(r"(NYSE American|NYSE|Nasdaq)\s*:\s*" + sym + r"\b", traded)
    if m:
        return {"NYSE": "NYSE", "NYSE American": "AMEX", "Nasdaq": "NSDQ"}[m.group(1)]
    for s in stock.get("symbols") or []:
        prefix = s.get("google", "").split(":")[0]
        if s.get("currency") == "USD" and prefix in ("NYSE", "NASDAQ"):
            return "NSDQ" if prefix == "NASDAQ" else "NYSE"
    return "NSDQ" if nasdaq100 else "NYSE"


def number(value):
    return "" if value is None else str(int(value))


def main():
    tickers = PyTickerSymbols()
    rows = {}
    for index in ("S&P 500", "NASDAQ 100"):
        for stock in tickers.get_stocks_by_index(index):
            sym = stock["symbol"].strip().upper()
            if sym in rows or not SYMBOL.match(sym):
                continue
            name, level, volume = OVERRIDES.get(sym, (ascii_upper(stock["name"]), None, None))
            level = level or LEVELS.get(sym)
            exchange = exchange_of(stock, index == "NASDAQ 100")
            rows[sym] = (name, "EQUITY", exchange, level, volume)
    # Other class shares of listed companies (the package lists one class per company).
    for sym in ("FOXA", "NWSA", "GOOG", "GOOGL"):
        if sym not in rows:
            name, level, volume = OVERRIDES[sym]
            rows[sym] = (name, "EQUITY", "NSDQ", level, volume)
    for sym, (name, exchange, level, volume) in ETFS.items():
        rows[sym] = (name, "ETF", exchange, level, volume)

    out = sys.stdout
    out.write(
        f"# The paper market's symbols: S&P 500 and Nasdaq-100 from pytickersymbols "
        f"{version('pytickersymbols')} (PyPI, MIT), ETFs listed by hand; generated "
        f"{datetime.date.today().isoformat()} by runtime/data/regenerate-universe.py.\n"
    )
    out.write("# symbol\tname\ttype\texchange\treference_price\tdaily_volume\n")
    for sym in sorted(rows):
        name, kind, exchange, level, volume = rows[sym]
        out.write(f"{sym}\t{name}\t{kind}\t{exchange}\t{number(level)}\t{number(volume)}\n")


if __name__ == "__main__":
    main()
