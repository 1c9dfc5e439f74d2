"""The prefix-cache suite's workload, which the prefix-cache tests run too: two output types with
their own instructions and inputs, and two agents' tools (typed stubs with fixed answers)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

# -- two output types ---------------------------------------------------------------------------


class Contact(BaseModel):
    name: str
    company: str
    email: str
    phone: str


class Ticket(BaseModel):
    summary: str
    severity: Literal["low", "medium", "high", "critical"]
    component: Literal["database", "frontend", "network", "auth", "billing"]


CONTACT_RULES = (
    "You read e-mail signatures and business cards for a sales team. Extract the contact. "
    "Write the name as the person writes it, without titles such as Dr. or Mr. The company is "
    "the organisation the person works for, not a department. Write the e-mail address in lower "
    "case. Write the phone number with its country code, digits and spaces only, as in "
    "+44 20 7946 0958; when the text gives no country code, use the one of the company's city. "
    "When a field is missing, write an empty string rather than guessing."
)
TICKET_RULES = (
    "You triage support requests for a web shop's engineering team. Summarise the problem in "
    "one short sentence that names what is broken, not what the customer feels. Severity: "
    "critical when nobody can buy or log in, high when a core feature fails for many users, "
    "medium when a feature fails for some users or has a workaround, low for cosmetic issues "
    "and questions. Component: database for lost or wrong data, frontend for pages and buttons, "
    "network for timeouts and outages, auth for logins and passwords, billing for payments "
    "and invoices."
)
CONTACTS = [
    "Dr. Anna Keller | Head of Procurement, Brightwater Ltd | anna.keller@brightwater.co.uk | 020 7946 0958",
    "Best regards, Tom Baker, Sales Director at Northwind Traders. Tel +1 206 555 0100, tom@northwind.com",
    "Li Wei, CTO, Pangolin Robotics (Shenzhen). li.wei@pangolin-robotics.cn, +86 755 8888 1234",
    "Maria Rossi - Ufficio acquisti - Ferretti SpA - m.rossi@ferretti.it - 02 4567 8901 (Milano)",
]
TICKETS = [
    "Since this morning nobody can log in; the login page says 'invalid token' for everyone.",
    "The 'add to cart' button on the product page does nothing on Safari, other browsers work.",
    "Customers were charged twice for orders placed between 2 and 3 pm yesterday.",
    "The footer logo looks blurry on high-resolution screens.",
]


# -- the agents' tools ---------------------------------------------------------------------------


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get the current weather in a city.

    Args:
        city: The city name, e.g. Paris.
        unit: The temperature unit.
    """
    return f"18 degrees {unit}, light rain in {city}"


def get_forecast(city: str, days: int = 3) -> str:
    """Get the weather forecast for the next days in a city.

    Args:
        city: The city name.
        days: How many days ahead, 1 to 7.
    """
    return f"{city}: sunny for {days} days, highs around 24 degrees"


def find_flights(origin: str, destination: str, date: str) -> str:
    """Find direct flights between two cities on a date.

    Args:
        origin: The city the flight leaves from.
        destination: The city the flight arrives in.
        date: The day of the flight, as YYYY-MM-DD.
    """
    return f"2 flights {origin} to {destination} on {date}: 08:10 and 17:45"


def book_hotel(city: str, nights: int, guests: int = 1) -> str:
    """Book a hotel room in a city.

    Args:
        city: The city of the hotel.
        nights: How many nights to stay.
        guests: How many people share the room.
    """
    return f"Booked {nights} nights in {city} for {guests}; confirmation HX{nights}{guests}7"


def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
    """Convert an amount of money from one currency to another at today's rate.

    Args:
        amount: The amount to convert.
        from_currency: The three-letter code of the currency to convert from, e.g. USD.
        to_currency: The three-letter code of the currency to convert to, e.g. EUR.
    """
    return f"{amount} {from_currency} = {amount * 0.92:.2f} {to_currency}"


def get_stock_price(symbol: str) -> str:
    """Get the latest price of a stock.

    Args:
        symbol: The stock's ticker symbol, e.g. AAPL.
    """
    return f"{symbol}: 187.30 USD, +1.2% today"


def loan_payment(principal: float, annual_rate: float, years: int) -> str:
    """Compute the monthly payment of a fixed-rate loan.

    Args:
        principal: The amount borrowed.
        annual_rate: The yearly interest rate in percent, e.g. 5 for 5%.
        years: The length of the loan in years.
    """
    r, n = annual_rate / 1200, years * 12
    return f"{principal * r / (1 - (1 + r) ** -n):.2f} per month" if r else f"{principal / n:.2f} per month"


def get_exchange_history(currency: str, days: int = 30) -> str:
    """Get how a currency's exchange rate against the US dollar moved over the last days.

    Args:
        currency: The three-letter currency code.
        days: How many days back to look.
    """
    return f"{currency} moved -0.8% against USD over {days} days"
