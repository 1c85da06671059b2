"""The asyncio controller process."""
