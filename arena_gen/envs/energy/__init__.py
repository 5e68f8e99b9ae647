"""arena_gen/envs/energy"""
