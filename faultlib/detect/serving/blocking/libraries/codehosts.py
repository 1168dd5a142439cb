"""Synchronous REST clients of code hosts and trackers: PyGithub, python-gitlab, atlassian-python-api (Jira,
Confluence, Bitbucket...) and pycontribs' ``jira``.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
the census of unseen async services (``benchmarks/blocking_census.py``: Atlassian MCP servers, bots that open
GitHub issues). Each client sends its HTTP requests with ``requests`` in the calling thread: every API method of
the client (and of the objects PyGithub returns: a ``Repository``'s ``get_contents``, ``create_issue``...) is a
blocking request; constructing a client sends nothing, except jira's ``JIRA(...)``, which asks the server for its
version info unless told ``get_server_info=False`` (held-out wave 53: a Telegram bot's repository built inside an
async task). The async clients (``githubkit`` with ``async_*``
methods, ``gidgethub``, ``aiohttp``-based ones) are other packages and are not named here.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Family, Vocabulary

H = "blocking_http"
PYGITHUB = ("https://pygithub.readthedocs.io/en/stable/introduction.html (PyGithub calls the GitHub REST API with "
            "requests; get_repo, get_user, create_issue, get_contents... each send a request)")
GITLAB = ("https://python-gitlab.readthedocs.io/en/stable/api-usage.html (the Gitlab object and its managers -- "
          "gl.projects.get, project.issues.create -- send synchronous requests)")
ATLASSIAN = ("https://atlassian-python-api.readthedocs.io/ (Jira, Confluence, Bitbucket, ServiceDesk... are REST "
             "clients on a requests session; every method is an HTTP call)")
JIRA = "https://jira.readthedocs.io/ (the JIRA client sends synchronous requests: issue, search_issues, add_comment...)"
JIRA_INFO = ("https://jira.readthedocs.io/api.html#jira.client.JIRA (get_server_info, default True: \"If true it will "
             "fetch server version info first to determine if some API calls are available\")")
_JIRA = ("jira.JIRA", "jira.client.JIRA")

_ATLASSIAN = tuple(f"atlassian.{c}" for c in ("Jira", "Confluence", "Bitbucket", "ServiceDesk", "Bamboo", "Xray",
                                              "Crowd", "Insight", "Portfolio", "Cloud"))
_PYGITHUB_HOUSEKEEPING = frozenset({"close", "get_oauth_application", "load", "dump"})
"""PyGithub methods that send nothing (closing the session, building an OAuth helper, pickling an object)."""

CODE_HOSTS = Vocabulary(
    families=(
        Family(("github",), {"*": H}, PYGITHUB, except_=_PYGITHUB_HOUSEKEEPING, package=True, functions=False),
        Family(("gitlab.Gitlab", "gitlab.client.Gitlab"), {"*": H}, GITLAB, resources=True,
               except_=frozenset({"close", "enable_debug"})),
        Family(_ATLASSIAN, {"*": H}, ATLASSIAN, except_=frozenset({"close", "resource_url", "url_joiner"})),
        Family(_JIRA, {"*": H}, JIRA, except_=frozenset({"close"})),
    ),
    calls={j: (H, JIRA_INFO) for j in _JIRA},
    when={j: BlocksWhen("get_server_info", position=9, test="true", absent=True) for j in _JIRA},
    returns={
        "github.Github.get_repo": "github.Repository.Repository",
        "github.Github.get_user": "github.AuthenticatedUser.AuthenticatedUser",
        "github.Github.get_organization": "github.Organization.Organization",
        "github.Organization.Organization.get_repo": "github.Repository.Repository",
        "github.Repository.Repository.get_issue": "github.Issue.Issue",
        "github.Repository.Repository.get_pull": "github.PullRequest.PullRequest",
        "github.Repository.Repository.create_issue": "github.Issue.Issue",
        **{c: c for c in _ATLASSIAN}, "jira.JIRA": "jira.JIRA", "gitlab.Gitlab": "gitlab.Gitlab",
        "github.Github": "github.Github",
    },
)
