"""The SDK's server class under its mcp 2 name, or its mcp 1 name (FastMCP)."""

try:
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp < 2
    from mcp.server.fastmcp import FastMCP as Server  # type: ignore[no-redef]

__all__ = ["Server"]
