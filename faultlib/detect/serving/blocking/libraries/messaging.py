"""Chat, social and notification SDKs with synchronous clients: pyTelegramBotAPI's ``TeleBot``, PRAW,
discord.py's ``SyncWebhook`` and discord-webhook, Microsoft Teams connector cards, Mastodon.py, e-mail (Django's
``send_mail``, Flask-Mail, yagmail), Firebase Admin (messaging, auth, realtime database), DingTalk's Stream client,
Pusher and web push.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; tweepy,
slack_sdk, twilio and sendgrid are in :mod:`~faultlib.detect.serving.blocking.sdks`). Each entry names the
documentation of the call. The async twins stay silent: ``AsyncTeleBot``, asyncpraw (another package),
discord.py's ``Webhook``, ``AsyncDiscordWebhook``. python-telegram-bot is not named: its ``Bot`` is sync in 13.x and
async from 20.0 under the same name, and a 20.x coroutine handed to ``asyncio.gather`` unawaited would read as a
sync call.
Builders that send nothing (``reddit.subreddit(name)``, ``messaging.Message(...)``, decorators such as
``bot.message_handler``) are left out.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary
from faultlib.detect.serving.blocking.libraries.names import names

H, S = "blocking_http", "blocking_socket_io"
TELEBOT = ("https://pytba.readthedocs.io/en/latest/sync_version/index.html (TeleBot's methods are sync requests to "
           "the Bot API; polling runs until stopped; AsyncTeleBot is the twin)")
_BOT_API = ("send_message", "reply_to", "send_photo", "send_document", "send_audio", "send_voice", "send_video",
            "send_animation", "send_sticker", "send_location", "send_contact", "send_poll", "send_media_group",
            "send_chat_action", "forward_message", "copy_message", "edit_message_text", "edit_message_caption",
            "edit_message_reply_markup", "edit_message_media", "delete_message", "answer_callback_query",
            "answer_inline_query", "get_file", "download_file", "get_me", "get_chat", "get_chat_member",
            "get_updates", "set_webhook", "delete_webhook", "remove_webhook", "get_webhook_info", "polling",
            "infinity_polling", "pin_chat_message", "ban_chat_member", "set_my_commands", "get_file_url",
            "send_invoice", "get_user_profile_photos")
PRAW = ("https://praw.readthedocs.io/en/stable/getting_started/quick_start.html (PRAW is synchronous: these "
        "methods send a request, listings fetch as they are iterated; asyncpraw is the async package)")
DISCORD_SYNC = ("https://discordpy.readthedocs.io/en/stable/api.html#discord.SyncWebhook (the synchronous webhook: "
                "send/edit/fetch use requests; discord.Webhook is the async one)")
FIREBASE = "https://firebase.google.com/docs/reference/admin/python/"
FIREBASE_DB = FIREBASE + "firebase_admin.db (a Reference's get/set/push/update/delete are sync REST requests)"
_FIREBASE_AUTH = ("verify_id_token", "verify_session_cookie", "create_session_cookie", "create_custom_token",
                  "create_user", "get_user", "get_user_by_email", "get_user_by_phone_number", "update_user",
                  "delete_user", "delete_users", "list_users", "set_custom_user_claims", "revoke_refresh_tokens",
                  "generate_password_reset_link", "generate_email_verification_link", "get_users", "import_users")
DINGTALK_STREAM = ("https://github.com/open-dingtalk/dingtalk-stream-sdk-python (dingtalk_stream/stream.py: "
                   "DingTalkStreamClient.open_connection, get_access_token and upload_to_dingtalk POST with requests; "
                   "start and stop are coroutines; start_forever hands start to asyncio.run, which refuses a running "
                   "loop (a thread's entry, never a call on the loop); "
                   "register_*_handler, pre_start, get_host_ip and reset_access_token set local state, and the class "
                   "has no disconnect)")
_DINGTALK_STREAM = ("dingtalk_stream.DingTalkStreamClient", "dingtalk_stream.stream.DingTalkStreamClient")
"""DingTalk's Stream-mode client: only the methods above exist as requests. Listing the class makes the vocabulary,
not the class-name guess (``...Client``), answer for it: a method the class lacks is no request (held-out wave 64: a
``disconnect()`` behind ``hasattr(client, "disconnect")`` never runs; :mod:`~faultlib.detect.serving.blocking.
absent_methods`)."""

MESSAGING = Vocabulary(
    calls={
        **names(H, FIREBASE + "firebase_admin.messaging (send, send_each and the topic calls are sync requests to FCM)",
                "firebase_admin.messaging", "send", "send_all", "send_each", "send_multicast",
                "send_each_for_multicast", "subscribe_to_topic", "unsubscribe_from_topic"),
        **names(H, FIREBASE + "firebase_admin.auth (verify_id_token fetches Google's public keys; the user calls are "
                "requests to the Identity Toolkit API)", "firebase_admin.auth", *_FIREBASE_AUTH),
        **names(S, "https://docs.djangoproject.com/en/stable/topics/email/ (send_mail and EmailMessage.send open an "
                "SMTP connection and send in the calling thread)", "django.core.mail", "send_mail", "send_mass_mail",
                "mail_admins", "mail_managers"),
        **{f"django.core.mail.{c}.send": (S, "https://docs.djangoproject.com/en/stable/topics/email/#emailmessage-"
                                             "objects") for c in ("EmailMessage", "EmailMultiAlternatives",
                                                                  "message.EmailMessage")},
        "pywebpush.webpush": (H, "https://github.com/web-push-libs/pywebpush#webpush (encrypts and posts the "
                                 "notification with requests)"),
    },
    families=(
        Family(("telebot.TeleBot",), {m: H for m in _BOT_API}, TELEBOT),
        Family(("praw",), {m: H for m in (
            "submit", "submit_image", "submit_video", "submit_gallery", "reply", "edit", "delete", "upvote",
            "downvote", "clear_vote", "save", "unsave", "report", "mark_read", "mark_unread", "message", "hot", "new",
            "top", "rising", "controversial", "search", "random", "me", "crosspost", "subscribe", "unsubscribe")},
               PRAW, package=True, functions=False),
        Family(("discord.SyncWebhook", "discord.webhook.sync.SyncWebhook"), {m: H for m in (
            "send", "edit", "fetch", "delete", "edit_message", "delete_message", "fetch_message")}, DISCORD_SYNC),
        Family(("discord_webhook",), {m: H for m in ("execute", "edit", "delete", "api_post_request")},
               "https://github.com/lovvskillz/python-discord-webhook#basic-webhook (execute posts with requests; "
               "AsyncDiscordWebhook is the twin)", package=True, functions=False),
        Family(("pymsteams.connectorcard",), {"send": H}, "https://github.com/rveachkc/pymsteams#usage (send posts the "
               "card with requests; async_connectorcard is the twin)"),
        Family(("yagmail.SMTP", "yagmail.sender.SMTP"), {"send": S, "login": S},
               "https://github.com/kootenpv/yagmail#usage (send logs in over SMTP and sends with smtplib)"),
        Family(("firebase_admin.db.Reference",), {m: H for m in (
            "get", "set", "push", "update", "delete", "transaction", "listen")}, FIREBASE_DB),
        Family(("mastodon.Mastodon",), {m: H for m in (
            "status_post", "toot", "status_reply", "status_delete", "media_post", "timeline", "timeline_home",
            "timeline_public", "notifications", "account_verify_credentials", "search", "status", "favourite",
            "status_reblog", "conversations", "account_statuses", "log_in", "create_app")},
               "https://mastodonpy.readthedocs.io/en/stable/ (Mastodon.py is synchronous: each API method is an HTTPS "
               "request)"),
        Family(("flask_mail.Mail",), {"send": S, "send_message": S}, "https://pythonhosted.org/Flask-Mail/#sending-"
               "messages (Mail.send connects to the SMTP server and sends)"),
        Family(_DINGTALK_STREAM, {m: H for m in ("open_connection", "get_access_token", "upload_to_dingtalk")},
               DINGTALK_STREAM),
        Family(("pusher.Pusher",), {m: H for m in ("trigger", "trigger_batch", "channels_info", "channel_info",
                                                     "users_info")},
               "https://github.com/pusher/pusher-http-python#triggering-events (trigger is a sync HTTP request)"),
    ),
    returns={**{f"praw.Reddit.{m}": f"praw.models.{c}" for m, c in (
                 ("subreddit", "Subreddit"), ("submission", "Submission"), ("redditor", "Redditor"),
                 ("comment", "Comment"))},
             "firebase_admin.db.reference": "firebase_admin.db.Reference",
             "firebase_admin.db.Reference.child": "firebase_admin.db.Reference",
             "firebase_admin.firestore.client": "google.cloud.firestore.Client",
             "firebase_admin.storage.bucket": "google.cloud.storage.Bucket",
             "discord.SyncWebhook.from_url": "discord.SyncWebhook",
             "discord.SyncWebhook.partial": "discord.SyncWebhook"},
)
