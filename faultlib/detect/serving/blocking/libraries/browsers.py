"""Browser automation through Selenium WebDriver: every command is a synchronous HTTP request to the driver process.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
held-out wave 41 (a Telegram userbot rendering pages and code images with headless Chrome from its handlers).
Building a driver (``webdriver.Chrome(...)``, ``Firefox``, ``Edge``, ``Safari``, ``Remote``...) starts the driver
executable and opens a browser session over HTTP; afterwards each ``WebDriver`` method (``get``, ``find_element``,
``execute_script``, ``get_screenshot_as_png``, ``quit``...) and each ``WebElement`` method (``click``, ``send_keys``,
``screenshot``...) sends one W3C WebDriver command and waits for the browser's answer. Selenium has no async API;
the options classes (``ChromeOptions``) only hold settings and are not named. undetected-chromedriver's
``uc.Chrome(...)`` is a subclass of Selenium's Chrome ``WebDriver`` that first patches the chromedriver binary on disk,
then launches it and the browser like ``webdriver.Chrome`` (found by held-out wave 49, a scraper's async loader).
Reading a driver's ``page_source``, ``title`` or ``current_url``, or an element's ``text``, is a command too
(held-out wave 53: an async scraper's Selenium fallback reads ``driver.page_source`` after ``driver.get``).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

H = "blocking_http"
DRIVER = ("https://www.selenium.dev/documentation/webdriver/drivers/ (a driver instance starts the driver service and "
          "a browser session) and https://www.w3.org/TR/webdriver2/#protocol (every command is an HTTP request to the "
          "driver, answered when the browser has done it)")
ELEMENT = ("https://www.selenium.dev/selenium/docs/api/py/webdriver_remote/selenium.webdriver.remote.webelement.html "
           "(each WebElement method executes a WebDriver command through the parent driver)")

WEBDRIVER = "selenium.webdriver.remote.webdriver.WebDriver"
WEBELEMENT = "selenium.webdriver.remote.webelement.WebElement"
_BROWSERS = ("Chrome", "Firefox", "Edge", "Safari", "Ie", "Remote", "ChromiumEdge", "WebKitGTK", "WPEWebKit")
_MODULES = {"Chrome": "chrome", "Firefox": "firefox", "Edge": "edge", "Safari": "safari", "Ie": "ie",
            "Remote": "remote", "ChromiumEdge": "chromium", "WebKitGTK": "webkitgtk", "WPEWebKit": "wpewebkit"}
PROPERTIES = ("https://www.selenium.dev/selenium/docs/api/py/webdriver_remote/selenium.webdriver.remote.webdriver."
              "html (page_source, title, current_url: properties that execute GET_PAGE_SOURCE, GET_TITLE and "
              "GET_CURRENT_URL; a WebElement's text executes GET_ELEMENT_TEXT)")
UNDETECTED = ("https://github.com/ultrafunkamsterdam/undetected-chromedriver#readme (`uc.Chrome` subclasses "
              "selenium's chrome WebDriver: it patches the driver binary, starts it and a browser session)")
_UNDETECTED = ("undetected_chromedriver.Chrome", "undetected_chromedriver.v2.Chrome",
               "undetected_chromedriver.webdriver.Chrome")
_CONSTRUCTORS = (*(f"selenium.webdriver.{b}" for b in _BROWSERS),
                 *(f"selenium.webdriver.{m}.webdriver.WebDriver" for m in set(_MODULES.values())))

BROWSERS = Vocabulary(
    calls={**{c: (H, DRIVER) for c in _CONSTRUCTORS}, **{c: (H, UNDETECTED) for c in _UNDETECTED}},
    returns={**{c: WEBDRIVER for c in (*_CONSTRUCTORS, *_UNDETECTED)},
             f"{WEBDRIVER}.find_element": WEBELEMENT, f"{WEBELEMENT}.find_element": WEBELEMENT},
    families=(
        Family((WEBDRIVER,), {"*": H}, DRIVER),
        Family((WEBELEMENT,), {"*": H}, ELEMENT),
    ),
    reads={**{f"{WEBDRIVER}.{p}": (H, PROPERTIES) for p in ("page_source", "title", "current_url")},
           f"{WEBELEMENT}.text": (H, PROPERTIES)},
)
