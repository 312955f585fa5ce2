#!/usr/bin/env python3
"""catalogd's pages in headless chromium (selenium), against catalogd on the fake upstream; see scripts/browser-e2e.

Each check prints one line; the first failure stops the run with exit 1. Loopback only; every server it starts,
it stops; every wait is bounded.
"""
import argparse
import json
import os
import shutil
import tempfile
import time
import urllib.parse
import urllib.request

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from harness import Processes, free_port, get_json, wait_for

TOKEN = "browser-token"
# Names a feed or a writer could send that would run if a page wrote them as markup: each would set
# window.__pwned (and the CSP would log a refusal to the console).
HOSTILE = {
    "XSS-IMG": '<img src=x onerror="window.__pwned=1">',
    "XSS-SCRIPT": "<script>window.__pwned=2</script>",
    "XSS-ATTR": '"><svg onload="window.__pwned=3">',
}


def check(condition, what):
    if not condition:
        print(f"FAIL {what}")
        raise SystemExit(1)
    print(f"ok   {what}")


class Servers:
    """The fake upstream and catalogd on it, with a token for writes; both stopped on exit."""

    def __init__(self, bin_dir, work):
        self.work = work
        upstream_port, port = free_port(), free_port()
        self.processes = Processes(work, timeout=20)
        self.processes.start(None, [f"{bin_dir}/catalog-fixtures", "serve", "--port", str(upstream_port), "--products", "1000",
                                    "--seed", "1"])
        environment = dict(CATALOG_API_TOKEN=TOKEN, CATALOG_FILMS_URL=f"http://127.0.0.1:{upstream_port}/api/films/",
                           CATALOG_PRODUCTS_URL=f"http://127.0.0.1:{upstream_port}/products")
        try:
            wait_for(f"http://127.0.0.1:{upstream_port}/products?limit=1", 30)
            self.processes.start("catalogd", [f"{bin_dir}/catalogd", "serve", "--port", str(port), "--database",
                                              f"{work}/catalog.sqlite", "--import-interval", "1h"], env=environment)
        except BaseException:
            self.processes.stop_all()
            raise
        self.base = f"http://127.0.0.1:{port}"

    def __enter__(self):
        try:
            wait_for(self.base + "/readyz", 60)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                runs = get_json(self.base + "/imports")["results"]
                if sum(1 for run in runs if run["status"] == "succeeded") == 2:
                    return self
                time.sleep(0.1)
            raise RuntimeError("the start-up imports did not both succeed within 60 s")
        except BaseException:
            self.processes.stop_all()
            raise

    def __exit__(self, *exc):
        self.processes.stop_all()

    def put_product(self, serial_code, name):
        body = json.dumps({"name": name, "description": f"hostile {name}", "category": name, "brand": name,
                           "price": "9.99", "stock": 1}).encode()
        request = urllib.request.Request(
            f"{self.base}/products/{urllib.parse.quote(serial_code, safe='')}", data=body, method="PUT",
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status


def browser():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    return driver


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--docs", help="also write the README's screenshots (browser-search.png, browser-phone.png, "
                                       "browser-changes.png) here")
    args = parser.parse_args()
    for folder in [args.out] + ([args.docs] if args.docs else []):
        os.makedirs(folder, exist_ok=True)
    shots = []
    with tempfile.TemporaryDirectory(prefix="catalogd-browser.") as work, Servers(args.bin, work) as servers:
        base = servers.base
        for serial_code, name in HOSTILE.items():
            check(servers.put_product(serial_code, name) in (200, 201), f"PUT /products/{serial_code} with a hostile name")
        driver = browser()
        # The script swaps #results for fresh ones as the search is typed: an element read just before is gone.
        wait = WebDriverWait(driver, 10, ignored_exceptions=[StaleElementReferenceException])

        def shot(name, readme=None):
            path = os.path.join(args.out, name)
            driver.save_screenshot(path)
            shots.append(path)
            # The README shows what this run saw, so that its pictures cannot fall behind the pages.
            if readme and args.docs:
                shutil.copyfile(path, os.path.join(args.docs, readme))
                shots.append(os.path.join(args.docs, readme))

        def count_text():
            return driver.find_element(By.CSS_SELECTOR, "#results .count").text

        def shown(element):
            # What a person sees and can point at: selenium's is_displayed counts whatever is inside a closed <details>
            # as hidden, even where the stylesheet shows it (the facets on a wide screen, through ::details-content).
            return driver.execute_script(
                "const e = arguments[0], x = window.scrollX, y = window.scrollY; e.scrollIntoView({block: 'center'});"
                "const r = e.getBoundingClientRect(), hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
                "window.scrollTo(x, y); return e.checkVisibility() && hit === e", element)

        try:
            driver.get(base + "/products")
            check(driver.title == "Products · catalogd", f"/products is a page titled {driver.title!r}")
            check(count_text() == "1003 products", f"it counts every product: {count_text()!r}")
            check(shown(driver.find_element(By.CSS_SELECTOR, "aside.facets ul li a")),
                  "a wide window shows the facets beside the results, unfolded")
            shot("products.png")

            # A phone: the catalogue as the fake upstream serves it (the hostile names written above sort last).
            driver.set_window_size(375, 812)
            driver.get(base + "/products")
            row_bottom, screen = driver.execute_script(
                "return [document.querySelector('#results tbody tr').getBoundingClientRect().bottom, window.innerHeight]")
            check(row_bottom <= screen, f"at 375 px the first product row is within the first screen (it ends at {row_bottom:.0f} of {screen} px)")
            shot("phone.png", readme="browser-phone.png")
            summary = driver.find_element(By.CSS_SELECTOR, "aside.facets summary")
            facet = driver.find_element(By.CSS_SELECTOR, "aside.facets ul li a")
            check(summary.text == "Filters" and summary.rect["y"] > row_bottom and not shown(facet) and shown(summary),
                  f"the facets come after the results, folded under {summary.text!r}")
            summary.click()
            check(shown(facet), "and unfold when it is tapped")
            driver.set_window_size(1280, 900)
            driver.get(base + "/products")

            search = driver.find_element(By.ID, "search")
            for character in "product 12":
                search.send_keys(character)
                time.sleep(0.03)
            wait.until(lambda d: "matching" in count_text())
            expected = get_json(base + "/products?search=product%2012")["count"]
            wait.until(lambda d: count_text() == f"{expected} products matching “product 12”")
            check(True, f"results follow typing, as many as the JSON counts: {count_text()!r}")
            check("search=product%2012" in driver.current_url, f"the address follows the typed search: {driver.current_url}")
            search.send_keys(Keys.ENTER)
            wait.until(lambda d: d.find_element(By.ID, "search").get_attribute("value") == "product 12"
                       and "matching" in count_text())
            names = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "td[data-label=Name]")]
            check(names and names[0] == "Product 12", f"Enter submits the search, best match first: {names[:3]}")
            shot("search.png", readme="browser-search.png")

            facet = driver.find_element(By.CSS_SELECTOR, "aside.facets ul li a")
            # Its text and a pointer's click, as for `shown`: selenium's own would take it for hidden.
            value = facet.get_attribute("textContent")
            ActionChains(driver).move_to_element(facet).click().perform()
            wait.until(lambda d: "category=" in d.current_url)
            categories = {cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "td[data-label=Category]")}
            check(categories == {value}, f"a facet click narrows the list to {value!r}: {sorted(categories)}")

            driver.get(base + "/products?ordering=price")
            first_page = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "td[data-label='Serial code']")]
            driver.find_element(By.CSS_SELECTOR, "a[rel=next]").click()
            wait.until(lambda d: "cursor=" in d.current_url)
            second_page = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "td[data-label='Serial code']")]
            check(len(second_page) == 20 and not set(first_page) & set(second_page), "the next page follows the cursor")
            check(driver.find_elements(By.CSS_SELECTOR, "a[rel=prev]"), "and links back")

            driver.find_element(By.CSS_SELECTOR, "td[data-label=Name] a").click()
            wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "dl.fields")))
            fields = driver.find_element(By.CSS_SELECTOR, "dl.fields").text
            check("Serial code" in fields and "Price" in fields and "Source" in fields, "a product page shows every field")
            shot("product.png")

            # A mistyped word: once the service has read its vocabulary (at start-up), the page says what it
            # searched in its place and links to the search as typed.
            def corrected_page(d):
                d.get(base + "/products?search=prodcut%2012")
                return d.find_elements(By.CSS_SELECTOR, "#results .corrections")
            note = WebDriverWait(driver, 30).until(corrected_page)[0]
            check(note.text.startswith("Showing results for product (typed “prodcut”)"),
                  f"a mistyped search says what it searched: {note.text!r}")
            check(count_text() == f"{expected} products matching “prodcut 12”", f"as many as the words it searched: {count_text()!r}")
            shot("corrected.png")
            note.find_element(By.TAG_NAME, "a").click()
            wait.until(lambda d: "typos=0" in d.current_url)
            check(count_text() == "0 products matching “prodcut 12”" and not driver.find_elements(By.CSS_SELECTOR, "#results .corrections"),
                  f"and its link searches exactly what was typed: {count_text()!r}")

            driver.get(base + "/products?search=hostile")
            shown = sorted(cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "td[data-label=Name]"))
            check(shown == sorted(HOSTILE.values()), f"hostile names show as text: {shown}")
            shot("hostile.png")
            for serial_code, name in HOSTILE.items():
                driver.get(f"{base}/products/{urllib.parse.quote(serial_code)}")
                check(driver.find_element(By.TAG_NAME, "h1").text == name, f"{serial_code}'s page shows its name as text")
                check(driver.execute_script("return window.__pwned === undefined"), f"{serial_code}'s page ran nothing")
                try:
                    driver.switch_to.alert
                    check(False, "no alert opened")
                except NoAlertPresentException:
                    pass

            driver.get(base + "/")
            overview = driver.find_element(By.CSS_SELECTOR, "dl.fields").text
            check("1003 products" in overview and "6 films" in overview, "the overview counts the catalogue")
            runs = driver.find_elements(By.CSS_SELECTOR, "td[data-label=Status]")
            check(len(runs) == 2 and all(run.text == "succeeded" for run in runs), "and lists the last imports")
            shot("overview.png")

            driver.get(base + "/films")
            check(len(driver.find_elements(By.CSS_SELECTOR, "tbody tr")) == 6, "/films lists the six films")
            title = driver.find_element(By.CSS_SELECTOR, "td[data-label=Title] a")
            expected_title = title.text
            title.click()
            wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == expected_title)
            counts = [summary.text for summary in driver.find_elements(By.CSS_SELECTOR, "details summary")]
            check(len(counts) == 5, f"a film page shows its derived counts: {counts}")
            shot("film.png")

            driver.get(base + "/categories?ordering=-product_count")
            category = driver.find_element(By.CSS_SELECTOR, "td[data-label=Category] a")
            name = category.text
            category.click()
            wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == name)
            driver.find_element(By.CSS_SELECTOR, "dl.fields dd a").click()
            wait.until(lambda d: "category=" in d.current_url)
            listed = {cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "td[data-label=Category]")}
            check(listed == {name}, f"a category's page links to its products: {sorted(listed)}")

            driver.get(base + "/imports")
            driver.find_element(By.CSS_SELECTOR, "td[data-label=Run] a").click()
            wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text.startswith("Import "))
            check("Fetched" in driver.find_element(By.CSS_SELECTOR, "dl.fields").text, "an import's page shows its counts")
            shot("import.png")

            driver.get(base + "/changes")
            wait.until(lambda d: d.execute_script("return document.getElementById('live-changes') !== null"))
            time.sleep(0.3)  # the EventSource connects once the script runs
            written = time.monotonic()
            check(servers.put_product("LIVE-1", "Written while the page was open") in (200, 201), "PUT /products/LIVE-1")
            try:
                WebDriverWait(driver, 1).until(
                    lambda d: "LIVE-1" in d.find_element(By.CSS_SELECTOR, "#live-changes li").text)
                check(True, f"the change page shows the write within 1 s ({(time.monotonic() - written) * 1000:.0f} ms)")
            except TimeoutException:
                check(False, "the change page shows the write within 1 s")
            shot("changes.png", readme="browser-changes.png")

            driver.get(base + "/products/LIVE-1")
            history = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "ol.changes li")]
            check(len(history) == 1 and "upsert product LIVE-1 by token:bootstrap" in history[0], f"a product's page lists its changes: {history}")

            for path in ["/products", "/products?search=product", "/products/SKU-000001", "/", "/films", "/films/1", "/categories",
                         "/imports", "/imports/1", "/changes"]:
                driver.get(base + path)
                results = Axe(driver)
                results.inject()
                found = results.run()
                serious = [f'{v["id"]}: {v["nodes"][0]["html"] if v["nodes"] else ""}' for v in found["violations"]
                           if v.get("impact") in ("serious", "critical")]
                check(not serious, f"axe-core finds no serious violation on {path}: {serious}")

            errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
            check(not errors, f"the console holds no error: {errors[:3]}")

            driver.set_window_size(375, 812)
            for path, name in [("/products", None), ("/products/SKU-000001", "phone-product.png"), ("/", None),
                               ("/films", None), ("/films/1", None), ("/imports", None), ("/imports/1", None), ("/changes", None)]:
                driver.get(base + path)
                overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
                check(overflow <= 0, f"{path} at 375 px wide scrolls only down (overflow {overflow} px)")
                if name:
                    shot(name)
        except TimeoutException as error:
            check(False, f"a wait ended: {error.msg or 'timeout'} at {driver.current_url}")
        finally:
            driver.quit()
    print("screenshots: " + ", ".join(shots))
    print("browser-e2e: passed")


if __name__ == "__main__":
    main()
