"""The web app: the table display, dispute review, setup, statistics and the
companion home. It reads the service's state and events and calls its verbs;
it never reaches into a sensor."""

from controller.web.app import create_app

__all__ = ["create_app"]
