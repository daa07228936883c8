"""advise: the few changes worth making, from a cap sweep, context policies and MCP outputs, each with the
setting of the agent the sessions came from."""

from ..jobs import entry_point

entry_point(__name__, "advise", ("AdviseOptions",))
